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
import { holdsSecret } from "../../runtime/secrets.ts";
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

/** Files read and kept at once. */
const PARALLEL_FILES = 16;

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
    const files: string[] = [];
    for (const entry of await readDir(folder).catch(() => [])) {
      const path = join(folder, entry.name);
      if (entry.isDirectory) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !roots.some((root) => root !== folder && path === root)) folders.push(path);
      } else if (entry.isFile) {
        if (snapshot.size + files.length >= MAX_SNAPSHOT_FILES) truncated = true;
        else files.push(path);
      }
    }
    // A few files at a time: reading and keeping them is mostly waiting on the disk.
    for (let at = 0; at < files.length; at += PARALLEL_FILES) {
      if (signal.aborted) return { snapshot, truncated: true };
      const batch = files.slice(at, at + PARALLEL_FILES);
      const states = await Promise.all(batch.map((path) => fileState(path, previous.get(path), store)));
      batch.forEach((path, n) => {
        const state = states[n];
        if (state) snapshot.set(path, state);
      });
    }
  }
  return { snapshot, truncated };
}

/** A file's state: `known` again when its size, times and inode did not change, else read and kept anew. Undefined when it is gone or not a regular file. */
async function fileState(path: string, known: FileState | undefined, store: ObjectStore): Promise<FileState | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile) return undefined;
  if (same(known, info)) return known;
  const state: FileState = { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino };
  if (info.size > MAX_KEPT_FILE_BYTES) {
    state.unkept = `larger than ${MAX_KEPT_FILE_BYTES / (1024 * 1024)} MiB`;
    return state;
  }
  const bytes = await readFileBytes(path).catch(() => undefined);
  // A copy of a file holding a key the agent knows would put the key in the session's folder: none is kept.
  if (bytes && holdsSecret(new TextDecoder().decode(bytes))) {
    state.unkept = "it holds a credential the agent knows, which is never copied";
    return state;
  }
  const id = bytes ? await store.put(bytes) : undefined;
  if (id) state.id = id;
  else state.unkept = bytes ? "the session's checkpoint store is full" : "it could not be read";
  return state;
}
