/**
 * Putting the files the agent changed back as they were. A file is only
 * touched when it is exactly as the agent left it: one the user changed,
 * removed or created since is left as the user has it and reported as a
 * conflict, so a rewind never overwrites the user's work. Every path must
 * lead (links followed) into the session's folders, like every file tool's.
 * @module
 */
import { locateConfined, readConfinedBytes, resolveAreas } from "../../runtime/files/confined-file.ts";
import { realPath, removeFile, writeFileAtomic } from "../../runtime/files/fs.ts";
import { containingRoot, dirname, isAbsolute, normalize } from "../../runtime/files/path.ts";
import type { FileChange, Version } from "./file-changes.ts";
import { contentId } from "./object-store.ts";
import { MAX_KEPT_FILE_BYTES } from "./folder-snapshot.ts";

/** What happens (or, in a dry run, would happen) to one file. */
export type FileAction =
  /** Its content before the point is written back. */
  | "restore"
  /** The agent created it after the point: it is removed. */
  | "delete"
  /** The agent deleted it after the point: it is brought back. */
  | "recreate"
  /** The user changed, removed or created it since the agent last touched it: left as it is. */
  | "conflict"
  /** Nothing was kept to put it back with, or it cannot be reached: left as it is. */
  | "unavailable";

/** One file in a `_session/rewind_files` answer. */
export interface FileOutcome {
  path: string;
  action: FileAction;
  /** Whether the action was carried out (false in a dry run, for a conflict, and when it failed). */
  applied: boolean;
  /** Why a file is left as it is, or why the action failed. */
  reason?: string;
}

/** Reads a kept copy by its id. */
export type LoadCopy = (id: string) => Promise<Uint8Array>;

const encoder = new TextEncoder();

/** Decides, and unless `dryRun` carries out, what happens to each changed file. */
export async function restoreFiles(changes: readonly FileChange[], roots: readonly string[], load: LoadCopy, dryRun: boolean): Promise<FileOutcome[]> {
  const areas = await resolveAreas(roots);
  const outcomes: FileOutcome[] = [];
  for (const change of changes) outcomes.push(await restoreOne(change, roots, areas, load, dryRun));
  return outcomes;
}

async function bytesOf(version: Version, load: LoadCopy): Promise<Uint8Array> {
  return "text" in version ? encoder.encode(version.text) : await load(version.id);
}

/** Whether `bytes` are `version`. */
async function isVersion(bytes: Uint8Array, version: Version): Promise<boolean> {
  if ("text" in version) return new TextDecoder().decode(bytes) === version.text && bytes.length === encoder.encode(version.text).length;
  return (await contentId(bytes)) === version.id;
}

async function restoreOne(change: FileChange, roots: readonly string[], areas: readonly string[], load: LoadCopy, dryRun: boolean): Promise<FileOutcome> {
  const { path } = change;
  const left = (action: FileAction, reason: string): FileOutcome => ({ path, action, applied: false, reason });
  if (change.kind === "unkept") return left("unavailable", change.reason);
  // A path the journal names is checked like a tool's: absolute, normalised, inside the roots, and (below) once links are followed.
  if (!isAbsolute(path) || normalize(path) !== path || containingRoot(path, roots) === undefined) return left("unavailable", "outside the session's folders");
  const where = await locateConfined(path, areas);
  let target: string;
  if (change.after === null) {
    // The agent left it absent: it must still be absent, and where it goes must lead into the session's folders.
    if (where.ok || where.reason !== "missing") return left("conflict", "created since the agent removed it");
    if (!(await parentInside(path, areas))) return left("unavailable", "outside the session's folders");
    target = path;
  } else {
    if (!where.ok) return where.reason === "missing" ? left("conflict", "removed since the agent changed it") : left("unavailable", where.reason === "outside" ? "outside the session's folders" : `cannot be reached (${where.reason})`);
    const budget = "text" in change.after ? encoder.encode(change.after.text).length + 1 : MAX_KEPT_FILE_BYTES + 1;
    const now = await readConfinedBytes(where.realPath, { areas, budget });
    if (!now.ok) return now.reason === "too-large" ? left("conflict", "changed since the agent changed it") : left("unavailable", `cannot be read (${now.reason})`);
    if (!(await isVersion(now.bytes, change.after))) return left("conflict", "changed since the agent changed it");
    target = where.realPath;
  }
  const action: FileAction = change.before === null ? "delete" : change.after === null ? "recreate" : "restore";
  if (dryRun) return { path, action, applied: false };
  try {
    if (change.before === null) await removeFile(target);
    else await writeFileAtomic(target, await bytesOf(change.before, load));
    return { path, action, applied: true };
  } catch (error) {
    return left(action, error instanceof Error ? error.message : String(error));
  }
}

/** Whether the nearest existing folder above `path` leads (links followed) into the areas. */
async function parentInside(path: string, areas: readonly string[]): Promise<boolean> {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const real = await realPath(folder).catch(() => undefined);
    if (real !== undefined) return containingRoot(real, areas) !== undefined;
    if (dirname(folder) === folder) return false;
  }
}
