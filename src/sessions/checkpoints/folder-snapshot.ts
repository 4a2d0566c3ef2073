/**
 * A snapshot of the session's folders: every regular file's size, times and
 * inode, and the id of a kept copy of its bytes. Two snapshots around a
 * command tell what it created, changed and deleted. A file whose size,
 * times and inode are as in the last snapshot is not read again, so only
 * the first snapshot of a session reads the whole tree. What the project's
 * `.gitignore` files ignore (root and nested, `!` included, read like the
 * search tools read them: bounded, regular files inside the project) is left
 * out, as are folders that hold dependencies, build output or version
 * control whatever they say. Bounded: links are never followed, files over
 * a size limit are named as not kept when a command changes them, and
 * nothing past a file count is looked at. What was left out is kept by name
 * (`hidden`), so a file that a command's change to the ignore rules brings
 * in or out of view is not taken for created or deleted.
 * @module
 */
import { dirname } from "../../runtime/files/path.ts";
import { isNotFound, lstat, readFileBytes } from "../../runtime/files/fs.ts";
import { walkFiles, type WalkOptions } from "../../tools/search/file-walker.ts";
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

/** A snapshot and what it left out. */
export interface FolderSnapshot {
  files: Snapshot;
  /** Some files were not looked at (too many, or the snapshot was stopped). */
  truncated: boolean;
  /** Entries left out as ignored (`.gitignore`) or skipped; a folder stands for everything in it. */
  hidden: Set<string>;
  /** False when more entries were left out than `hidden` holds. */
  hiddenComplete: boolean;
  /** One notice per ignore file that was found but not applied. */
  unappliedRules: string[];
}

/** Entries `hidden` holds at most. */
const MAX_HIDDEN = 100_000;

/** Snapshots `roots`; files unchanged since `previous` keep their copy without being read. */
export async function snapshotFolders(roots: readonly string[], store: ObjectStore, previous: Snapshot, signal: AbortSignal): Promise<FolderSnapshot> {
  const result: FolderSnapshot = { files: new Map(), truncated: false, hidden: new Set(), hiddenComplete: true, unappliedRules: [] };
  const options: WalkOptions = {
    roots,
    signal,
    followLinks: false,
    skipDirectories: SKIPPED_FOLDERS,
    onIgnored(path) {
      if (result.hidden.size < MAX_HIDDEN) result.hidden.add(path);
      else result.hiddenComplete = false;
    },
    onIgnoreFileSkipped: (notice) => result.unappliedRules.push(notice),
  };
  let batch: string[] = [];
  // A few files at a time: reading and keeping them is mostly waiting on the disk.
  const flush = async () => {
    const states = await Promise.all(batch.map((path) => fileState(path, previous.get(path), store)));
    batch.forEach((path, n) => {
      const state = states[n];
      if (state) result.files.set(path, state);
    });
    batch = [];
  };
  for (const root of roots) {
    try {
      // A root inside another is walked on its own, once.
      const walk = walkFiles(root, { ...options, filter: (path) => path === root || !roots.includes(path) });
      for await (const entry of walk) {
        if (entry.isDirectory) continue;
        if (result.files.size + batch.length >= MAX_SNAPSHOT_FILES) {
          result.truncated = true;
          break;
        }
        batch.push(entry.path);
        if (batch.length >= PARALLEL_FILES) await flush();
      }
      await flush();
    } catch (error) {
      if (signal.aborted) result.truncated = true;
      // A root that is gone (a removed additional folder) holds nothing; anything else is the step's failure.
      else if (!isNotFound(error)) throw error;
    }
    if (result.truncated) break;
  }
  return result;
}

/** Whether `path`, or a folder holding it, was left out of `snapshot` as ignored or skipped. */
export function hiddenIn(snapshot: FolderSnapshot, path: string): boolean {
  for (let at = path; ; at = dirname(at)) {
    if (snapshot.hidden.has(at)) return true;
    if (dirname(at) === at) return false;
  }
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
