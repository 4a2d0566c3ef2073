/**
 * Changing a JSON file of the home directory (`auth.json`, `settings.json`)
 * from a command: read and validated, changed, validated again, and written
 * atomically, one writer at a time. A file that cannot be read as it should
 * is left exactly as it was, and the error says why.
 * @module
 */
import * as v from "valibot";
import { errorCode, lstat, makeDirectory, stat, writeFileAtomic } from "../runtime/files/fs.ts";
import { dirname } from "../runtime/files/path.ts";
import { checkJson, ConfigError, readJsonValue } from "./settings.ts";
import { describeIssues } from "./settings-schema.ts";
import { withUpdateLock } from "./update-lock.ts";

/** How the file is written. */
export interface JsonUpdateOptions {
  /** The file's mode after the write, new or replaced (default: kept, 0644 for a new file). */
  mode?: number;
  /** Refuse a file that is a symbolic link instead of writing where it points. */
  refuseLink?: boolean;
}

/** A hand edit landing between our read and our write is not overwritten: the change is made again on top of it. */
const ATTEMPTS = 3;

/** Refuses what must not be read or replaced: a link (when asked), a folder, a FIFO or a device. */
async function checkKind(path: string, options: JsonUpdateOptions): Promise<void> {
  const link = await lstat(path).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return undefined;
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`);
  });
  if (!link) return;
  if (link.isSymbolicLink && options.refuseLink) {
    throw new ConfigError(`${path} is a symbolic link; it is not written through (the key could land in a file others can read). Replace it with a regular file; nothing was changed`);
  }
  const target = link.isSymbolicLink ? await stat(path).catch(() => undefined) : link;
  if (target && !target.isFile) throw new ConfigError(`${path} is not a regular file; nothing was changed`);
}

/** A JSON object as written in its file: fields no schema knows are kept. */
export type JsonObject = Record<string, unknown>;

/**
 * Applies `change` to the file's object (undefined when the file does not
 * exist) and writes the result when it differs; `change` returns undefined
 * to leave the file alone. Both must pass `schema`;
 * what the schema does not know is kept as written. Resolves with the
 * objects before and after.
 */
export async function updateJsonFile(
  path: string,
  schema: v.GenericSchema,
  change: (current: JsonObject | undefined) => JsonObject | undefined,
  options: JsonUpdateOptions = {},
): Promise<{ before: JsonObject | undefined; after: JsonObject | undefined }> {
  await makeDirectory(dirname(path), 0o700);
  return await withUpdateLock(path, async () => {
    for (let attempt = 1; ; attempt++) {
      await checkKind(path, options);
      let before: JsonObject | undefined;
      try {
        const raw = await readJsonValue(path);
        if (raw !== undefined) {
          if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ConfigError(`${path} must hold a JSON object`);
          checkJson(path, raw, schema);
          before = raw as JsonObject;
        }
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(`${error.message}; fix or move the file, nothing was changed`);
        throw error;
      }
      const after = change(before === undefined ? undefined : structuredClone(before));
      if (after === undefined) return { before, after: before };
      const checked = v.safeParse(schema, after);
      if (!checked.success) throw new ConfigError(`${path}: the change would make it invalid (${describeIssues(checked.issues)}); nothing was changed`);
      if (before !== undefined && JSON.stringify(before) === JSON.stringify(after)) return { before, after };
      try {
        await writeFileAtomic(path, `${JSON.stringify(after, null, 2)}\n`, {
          ifUnchanged: true,
          ...(options.mode === undefined ? {} : { mode: options.mode }),
        });
        return { before, after };
      } catch (error) {
        if (errorCode(error) === "ECHANGED" && attempt < ATTEMPTS) continue;
        throw new ConfigError(`cannot write ${path}: ${(error as Error).message}`);
      }
    }
  });
}
