/**
 * Which projects' hooks the user trusts: `<home>/hook-trust.json` maps a
 * project folder to the content hashes of the hook files the user allowed
 * there. A hash covers every project file that holds hooks (path and text),
 * so any change to them — a command edited, one added — is a new hash and
 * the user is asked again.
 * @module
 */
import * as v from "valibot";
import { updateJsonFile } from "../../config/json-file-update.ts";
import { readJsonValue } from "../../config/settings.ts";
import { join } from "../../runtime/files/path.ts";
import type { HookFile } from "./hook-files.ts";
import { contentId } from "../checkpoints/object-store.ts";

/** Hashes kept per project: a project whose hooks change often does not grow the file without end. */
const KEPT_PER_PROJECT = 8;

const TrustSchema = v.object({ projects: v.optional(v.record(v.string(), v.array(v.string()))) });

export function trustFile(home: string): string {
  return join(home, "hook-trust.json");
}

/** The hash the user's trust in these project files is remembered by. */
export async function projectHookHash(files: readonly HookFile[]): Promise<string> {
  return await contentId(new TextEncoder().encode(files.map((file) => `${file.path}\0${file.text}\0`).join("")));
}

/** Whether the user allowed exactly these hooks (by `hash`) for `project` before. A file that cannot be read trusts nothing. */
export async function isTrusted(home: string, project: string, hash: string): Promise<boolean> {
  try {
    const value = v.safeParse(TrustSchema, await readJsonValue(trustFile(home)));
    return value.success && (value.output.projects?.[project] ?? []).includes(hash);
  } catch {
    return false;
  }
}

/** Remembers that the user allowed the hooks of `hash` for `project`. */
export async function rememberTrust(home: string, project: string, hash: string): Promise<void> {
  await updateJsonFile(
    trustFile(home),
    TrustSchema,
    (current) => {
      const projects = { ...((current?.projects as Record<string, string[]> | undefined) ?? {}) };
      const kept = (projects[project] ?? []).filter((h) => h !== hash);
      projects[project] = [...kept, hash].slice(-KEPT_PER_PROJECT);
      return { ...(current ?? {}), projects };
    },
    { mode: 0o600, refuseLink: true },
  );
}
