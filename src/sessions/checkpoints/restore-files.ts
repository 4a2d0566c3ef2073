/**
 * Putting the files the agent changed back as they were. A file is only
 * touched when it is exactly as the agent left it: one the user changed (or
 * removed) since is left as the user has it and reported as a conflict, so a
 * rewind never overwrites the user's work. Every path must lead (links
 * followed) into the session's folders, like every file tool's.
 * @module
 */
import { locateConfined, readConfinedFile, resolveAreas } from "../../runtime/files/confined-file.ts";
import { removeFile, writeFileAtomic } from "../../runtime/files/fs.ts";
import type { FileChange } from "./file-changes.ts";

/** What happens (or, in a dry run, would happen) to one file. */
export type FileAction =
  /** Its content before the point is written back. */
  | "restore"
  /** The agent created it after the point: it is removed. */
  | "delete"
  /** The user changed or removed it since the agent last did: left as it is. */
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

/** Decides, and unless `dryRun` carries out, what happens to each changed file. */
export async function restoreFiles(changes: readonly FileChange[], roots: readonly string[], dryRun: boolean): Promise<FileOutcome[]> {
  const areas = await resolveAreas(roots);
  const outcomes: FileOutcome[] = [];
  for (const change of changes) outcomes.push(await restoreOne(change, areas, dryRun));
  return outcomes;
}

async function restoreOne(change: FileChange, areas: readonly string[], dryRun: boolean): Promise<FileOutcome> {
  const { path } = change;
  if (change.kind === "unkept") return { path, action: "unavailable", applied: false, reason: change.reason };
  const where = await locateConfined(path, areas);
  if (!where.ok) {
    if (where.reason === "missing") return { path, action: "conflict", applied: false, reason: "removed since the agent changed it" };
    return { path, action: "unavailable", applied: false, reason: where.reason === "outside" ? "outside the session's folders" : `cannot be reached (${where.reason})` };
  }
  // One byte over what the agent left: a larger file is certainly not what it left.
  const now = await readConfinedFile(where.realPath, { areas, budget: new TextEncoder().encode(change.after).length + 1 });
  if (!now.ok) {
    const reason = now.reason === "too-large" ? "changed since the agent changed it" : `cannot be read (${now.reason})`;
    return { path, action: now.reason === "too-large" ? "conflict" : "unavailable", applied: false, reason };
  }
  if (now.text !== change.after) return { path, action: "conflict", applied: false, reason: "changed since the agent changed it" };
  const action: FileAction = change.before === null ? "delete" : "restore";
  if (dryRun) return { path, action, applied: false };
  try {
    if (change.before === null) await removeFile(where.realPath);
    else await writeFileAtomic(where.realPath, change.before);
    return { path, action, applied: true };
  } catch (error) {
    return { path, action, applied: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
