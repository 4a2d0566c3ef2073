/**
 * Noticing that files the agent read on its own changed, without reading
 * them again: each searched folder's stamp (a file added, removed or renamed
 * there changes it) and each file's (an edit in place changes it). A stamp is
 * the inode, size, mtime and ctime: the mtime alone misses a rewrite that
 * keeps the size and sets the old mtime back (`rsync -t`, `cp -p`), and a path
 * that now reaches another file (a swapped symbolic link) has another inode.
 * Comparing stamps costs one stat per entry instead of reading every file.
 * @module
 */
import { statOrUndefined } from "./fs.ts";

/** The stamps of some folders and files, in the order they were given. */
export type PathStamps = ReadonlyArray<{ path: string; stamp: string }>;

/**
 * An entry changed less than this before it was read (files) or stamped
 * (folders) may change again with the same stamp, or may have changed while
 * it was being read: it is read again at the next check. File systems and
 * runtimes with coarse times (FAT keeps 2 s, some 1 s; Deno reports ctime in
 * whole seconds) get seconds; where both times carry fractions of a
 * millisecond, the clock ticks in milliseconds and a short margin does.
 */
const COARSE_RACY_MS = 3000;
const FINE_RACY_MS = 50;
/** The stamp of an entry too recent to trust; never equal to a later stamp. */
const RACY = "racy";

/** `since`: when the entry's content was read (or, for a folder, now). */
async function stampOf(path: string, since: number): Promise<string> {
  const info = await statOrUndefined(path).catch(() => undefined);
  if (!info) return "missing";
  const fine = !Number.isInteger(info.mtimeMs) && !Number.isInteger(info.ctimeMs);
  if (Math.max(info.mtimeMs, info.ctimeMs) >= since - (fine ? FINE_RACY_MS : COARSE_RACY_MS)) return RACY;
  return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/**
 * Stamps `folders` (as of now) and `files` (as of `readAt`, when reading them
 * began: a file changed after it is racy). Follows links but never opens what
 * they lead to.
 */
export async function stampPaths(folders: readonly string[], files: readonly string[], readAt = Date.now()): Promise<PathStamps> {
  const now = Date.now();
  return await Promise.all([
    ...folders.map(async (path) => ({ path, stamp: await stampOf(path, now) })),
    ...files.map(async (path) => ({ path, stamp: await stampOf(path, readAt) })),
  ]);
}

/** Whether anything stamped changed since, or was too recent to judge (a stat per entry; nothing is read). */
export async function pathsChanged(stamps: PathStamps): Promise<boolean> {
  if (stamps.some((entry) => entry.stamp === RACY)) return true;
  const now = Date.now();
  const current = await Promise.all(stamps.map((entry) => stampOf(entry.path, now)));
  return current.some((value, i) => value !== stamps[i]!.stamp);
}
