/**
 * A snapshot of the session's folders: every regular file's size, times and
 * inode, and the id of a kept copy of its bytes. Two snapshots around a
 * command tell what it created, changed and deleted. A file whose size,
 * times and inode are as in the last snapshot is not read again, so only
 * the first snapshot of a session reads the whole tree. Bounded: folders
 * that hold dependencies, build output or version control are skipped, as
 * are links (never followed), files over a size limit (named as not kept when
 * a command changes them) and anything past a file count.
 * @module
 */
import { join } from "../../runtime/files/path.ts";
import { lstat, readDir, readFileBytes } from "../../runtime/files/fs.ts";
import type { ObjectStore } from "./object-store.ts";

/** Folders never walked: version control, dependencies, build caches. */
export const SKIPPED_FOLDERS = new Set([".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__", ".next", ".cache", "target"]);
/** A file larger than this is not kept. */
export const MAX_KEPT_FILE_BYTES = 4 * 1024 * 1024;
/** Files a snapshot looks at, at most. */
export const MAX_SNAPSHOT_FILES = 20_000;

/** One file in a snapshot; `id` is absent when no copy is kept (too large, store full, unreadable). */
export interface FileState {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  id?: string;
  /** Why there is no copy. */
  unkept?: string;
}

/** Absolute path → state. */
export type Snapshot = Map<string, FileState>;

const same = (a: FileState | undefined, b: { size: number; mtimeMs: number; ctimeMs: number; ino: number }) =>
  a !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;

/** Snapshots `roots`; files unchanged since `previous` keep their copy without being read. */
export async function snapshotFolders(roots: readonly string[], store: ObjectStore, previous: Snapshot, signal: AbortSignal): Promise<{ snapshot: Snapshot; truncated: boolean }> {
  const snapshot: Snapshot = new Map();
  const folders = [...roots];
  let truncated = false;
  while (folders.length > 0) {
    const folder = folders.pop()!;
    for (const entry of await readDir(folder).catch(() => [])) {
      if (signal.aborted) return { snapshot, truncated: true };
      const path = join(folder, entry.name);
      if (entry.isDirectory) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !roots.some((root) => root !== folder && path === root)) folders.push(path);
        continue;
      }
      if (!entry.isFile) continue;
      if (snapshot.size >= MAX_SNAPSHOT_FILES) {
        truncated = true;
        continue;
      }
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isFile) continue;
      const known = previous.get(path);
      if (same(known, info)) {
        snapshot.set(path, known!);
        continue;
      }
      const state: FileState = { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino };
      if (info.size > MAX_KEPT_FILE_BYTES) state.unkept = `larger than ${MAX_KEPT_FILE_BYTES / (1024 * 1024)} MiB`;
      else {
        const bytes = await readFileBytes(path).catch(() => undefined);
        const id = bytes ? await store.put(bytes) : undefined;
        if (id) state.id = id;
        else state.unkept = bytes ? "the session's checkpoint store is full" : "it could not be read";
      }
      snapshot.set(path, state);
    }
  }
  return { snapshot, truncated };
}
