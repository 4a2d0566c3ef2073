/**
 * File-system access. `node:fs/promises` behaves the same on Node, Bun and
 * Deno for everything used here, so there is one implementation.
 * @module
 */
import fs from "node:fs/promises";
import { constants, readdirSync, statSync } from "node:fs";
import path from "node:path";
import process from "node:process";

export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
  size: number;
  mtimeMs: number;
  /** Changes with any write or metadata change, and cannot be set back by the file's owner (unlike `mtimeMs`). */
  ctimeMs: number;
  /** Which file this is: a path replaced by another file (rename, swapped link) has another inode. */
  ino: number;
  mode: number;
}

export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

function toInfo(s: import("node:fs").Stats): FileInfo {
  return {
    isFile: s.isFile(),
    isDirectory: s.isDirectory(),
    isSymbolicLink: s.isSymbolicLink(),
    size: s.size,
    mtimeMs: s.mtimeMs,
    ctimeMs: s.ctimeMs,
    ino: s.ino,
    mode: s.mode,
  };
}

/** Follows symbolic links. Rejects with an error whose `code` is `ENOENT` when missing. */
export async function stat(path: string): Promise<FileInfo> {
  return toInfo(await fs.stat(path));
}

/** Does not follow a final symbolic link. */
export async function lstat(path: string): Promise<FileInfo> {
  return toInfo(await fs.lstat(path));
}

/** Like `stat`, but undefined when the path does not exist. */
export async function statOrUndefined(path: string): Promise<FileInfo | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function realPath(path: string): Promise<string> {
  return await fs.realpath(path);
}

export async function readDir(path: string): Promise<DirEntry[]> {
  const entries = await fs.readdir(path, { withFileTypes: true });
  return entries.map((e) => ({
    name: e.name,
    isFile: e.isFile(),
    isDirectory: e.isDirectory(),
    isSymbolicLink: e.isSymbolicLink(),
  }));
}

export async function readFileBytes(path: string): Promise<Uint8Array> {
  return new Uint8Array(await fs.readFile(path));
}

export async function readTextFile(path: string): Promise<string> {
  return await fs.readFile(path, "utf8");
}

/** Reads at most `length` bytes from the start of a file (for sniffing and capped reads). */
export async function readFileHead(path: string, length: number): Promise<Uint8Array> {
  const handle = await fs.open(path, "r");
  try {
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Reads at most `length` bytes from the end of a file (for journals' last entries). */
export async function readFileTail(path: string, length: number): Promise<{ bytes: Uint8Array; size: number }> {
  const handle = await fs.open(path, "r");
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - length);
    const buffer = new Uint8Array(size - start);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: buffer.subarray(0, filled), size };
  } finally {
    await handle.close();
  }
}

export async function makeDirectory(path: string, mode?: number): Promise<void> {
  await fs.mkdir(path, { recursive: true, ...(mode === undefined ? {} : { mode }) });
}

/** Writes a whole file. `mode` applies only when the file is created. */
export async function writeFile(path: string, data: string | Uint8Array, mode?: number): Promise<void> {
  await fs.writeFile(path, data, mode === undefined ? undefined : { mode });
}

/**
 * Creates a file that must not exist yet (O_EXCL) and writes it.
 * Rejects with `EEXIST` if it does.
 */
export async function createExclusive(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  const handle = await fs.open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A file-system error carrying a POSIX-like `code`, for refusals that never reached the OS. */
function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/** Where a write to `target` must land: symlinks followed, so the link survives; a broken link is refused. */
async function writeDestination(target: string): Promise<string> {
  try {
    return await fs.realpath(target);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const link = await fs.lstat(target).catch(() => undefined);
  if (link?.isSymbolicLink()) throw fsError("ENOENT", `broken symbolic link, write '${target}'`);
  return target;
}

/**
 * Replaces (or creates) a file so that readers see either the old or the new
 * content, never a mix: writes a temporary file beside it, fsyncs it and
 * renames it over the target. Keeps the existing file's mode (0o644, less the
 * umask, for new files), follows a symlinked target, creates missing parent
 * directories, and removes the temporary file on any failure. Refuses a
 * target that exists and is not a regular file (`EISDIR`, `EINVAL`) without
 * opening it, so a FIFO or device is never blocked on or truncated.
 *
 * With `ifUnchanged`, a target that is created, removed, replaced or modified
 * while the new content is being written is left as it is and the write
 * fails with `ECHANGED`: someone else's change is not lost. Creating a file
 * is then exclusive (a hard link, where the file system has them); replacing
 * one compares it with its state at the start right before the rename.
 *
 * With `mode`, the file gets exactly that mode, new or replaced (a private
 * file is never readable by others, not even while being written).
 */
export async function writeFileAtomic(target: string, content: string | Uint8Array, options: { ifUnchanged?: boolean; mode?: number } = {}): Promise<void> {
  const destination = await writeDestination(target);
  const existing = await fs.stat(destination).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  if (existing?.isDirectory()) throw fsError("EISDIR", `is a directory, write '${target}'`);
  if (existing && !existing.isFile()) throw fsError("EINVAL", `not a regular file, write '${target}'`);

  const directory = path.dirname(destination);
  if (!existing) await fs.mkdir(directory, { recursive: true });
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
  const temporary = path.join(directory, `.${path.basename(destination)}.${suffix}.tmp`);
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : 0o644);

  let handle: import("node:fs/promises").FileHandle | undefined;
  try {
    handle = await fs.open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, mode);
    if (existing || options.mode !== undefined) {
      // open() applies the umask; an existing file's mode (or the one asked for) is set exactly.
      // Path-based calls: every runtime's FileHandle has writeFile/sync, not all have chmod/chown.
      await fs.chmod(temporary, mode);
      // Keep the owner when we may (root editing someone's file); others cannot chown and need not.
      if (existing && process.getuid?.() === 0) await fs.chown(temporary, existing.uid, existing.gid).catch(() => undefined);
    }
    await handle.writeFile(content);
    await handle.sync();
    await handle.close();
    handle = undefined;
    if (options.ifUnchanged) await replaceIfUnchanged(temporary, destination, existing);
    else await fs.rename(temporary, destination);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fs.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectory(directory);
}

/** Moves `temporary` to `destination` only while the destination still is what `before` describes (absent when undefined). */
async function replaceIfUnchanged(temporary: string, destination: string, before: import("node:fs").Stats | undefined): Promise<void> {
  const changed = () => fsError("ECHANGED", `changed while being written, write '${destination}'`);
  if (!before) {
    try {
      // link() never replaces an existing name: creation is exclusive.
      await fs.link(temporary, destination);
      await fs.rm(temporary, { force: true });
      return;
    } catch (error) {
      if (errorCode(error) === "EEXIST") throw changed();
      // No hard links here (some file systems): fall back to checking, then renaming.
    }
  }
  const now = await fs.stat(destination).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  const same =
    before === undefined
      ? now === undefined
      : now !== undefined && now.ino === before.ino && now.size === before.size && now.mtimeMs === before.mtimeMs && now.ctimeMs === before.ctimeMs;
  if (!same) throw changed();
  await fs.rename(temporary, destination);
}

/** Makes a rename durable; not every platform can open a directory, so failures are ignored. */
async function syncDirectory(directory: string): Promise<void> {
  let handle: import("node:fs/promises").FileHandle | undefined;
  try {
    handle = await fs.open(directory, "r");
    await handle.sync();
  } catch {
    // Best effort (Windows cannot fsync a directory).
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Fsyncs a directory so a file created or removed in it survives a crash; best effort (see `syncDirectory`). */
export async function syncDirectoryEntries(directory: string): Promise<void> {
  await syncDirectory(directory);
}

export async function rename(from: string, to: string): Promise<void> {
  await fs.rename(from, to);
}

export async function removeFile(path: string): Promise<void> {
  await fs.rm(path, { force: true });
}

export async function removeTree(path: string): Promise<void> {
  await fs.rm(path, { recursive: true, force: true });
}

/** Sets a file's access and modification times to `at` (a heartbeat others can see through its mtime). */
export async function setFileTimes(path: string, at: Date): Promise<void> {
  await fs.utimes(path, at, at);
}

export async function changeMode(path: string, mode: number): Promise<void> {
  await fs.chmod(path, mode);
}

/** Creates a fresh directory under `parent` whose name starts with `prefix`. */
export async function makeTempDirectory(parent: string, prefix: string): Promise<string> {
  return await fs.mkdtemp(`${parent}/${prefix}`);
}

/** An append-only handle that can be fsynced (for journals). */
export interface AppendHandle {
  append(data: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export async function openAppend(path: string, mode = 0o600): Promise<AppendHandle> {
  const handle = await fs.open(path, "a", mode);
  return {
    async append(data) {
      await handle.appendFile(data, "utf8");
    },
    async sync() {
      await handle.sync();
    },
    async close() {
      await handle.close();
    },
  };
}

export function isNotFound(error: unknown): boolean {
  return errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR";
}

/** The POSIX error code (`ENOENT`, `EACCES`, …) of a file-system error, if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}

/** Creates `to` as a hard link to `from`; rejects with `EEXIST` when `to` exists (never overwrites). */
export async function hardLink(from: string, to: string): Promise<void> {
  await fs.link(from, to);
}

interface DenoFs {
  statSync?: (path: string) => DenoFileInfo;
  readDirSync?: (path: string) => Iterable<{ name: string; isFile: boolean; isDirectory: boolean; isSymlink: boolean }>;
}
const deno = (globalThis as { Deno?: DenoFs }).Deno;
/** Deno's own stat: about three times cheaper per file there than its `node:fs` one. */
const denoStatSync = deno?.statSync;
/** Deno's own directory listing: several times cheaper for big folders than its `node:fs` one. */
const denoReadDirSync = deno?.readDirSync;

/** Like `readDir`, synchronous: for listing folders of thousands of files where each call counts. Blocks. */
export function readDirSync(path: string): DirEntry[] {
  if (denoReadDirSync) {
    const entries: DirEntry[] = [];
    for (const e of denoReadDirSync(path)) entries.push({ name: e.name, isFile: e.isFile, isDirectory: e.isDirectory, isSymbolicLink: e.isSymlink });
    return entries;
  }
  return readdirSync(path, { withFileTypes: true }).map((e) => ({
    name: e.name,
    isFile: e.isFile(),
    isDirectory: e.isDirectory(),
    isSymbolicLink: e.isSymbolicLink(),
  }));
}

interface DenoFileInfo {
  isFile: boolean;
  size: number;
  mtime: Date | null;
  ctime: Date | null;
  ino: number | null;
}

/** What tells one version of a file from another without reading it (size, times, inode). */
export interface FileVersion {
  isFile: boolean;
  size: number;
  /** Whole milliseconds: Deno gives no more, so every runtime reports the same value for the same file. */
  mtimeMs: number;
  /** Whole milliseconds, like `mtimeMs`. */
  ctimeMs: number;
  ino: number;
}

/**
 * A synchronous stat for checking thousands of files at once, where the
 * asynchronous one costs several times more per file; undefined when the
 * path is missing. It blocks, so callers check in batches and yield between.
 */
export function fileVersionSync(path: string): FileVersion | undefined {
  if (denoStatSync) {
    try {
      const d = denoStatSync(path);
      return { isFile: d.isFile, size: d.size, mtimeMs: d.mtime?.getTime() ?? 0, ctimeMs: d.ctime?.getTime() ?? 0, ino: d.ino ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return undefined;
  return { isFile: s.isFile(), size: s.size, mtimeMs: Math.floor(s.mtimeMs), ctimeMs: Math.floor(s.ctimeMs), ino: s.ino };
}

/**
 * Replaces `target` by renaming a freshly written temporary file over it, so
 * readers see the old or the new content, never a mix. Not fsynced: for
 * caches, which may be lost or found empty after a crash. The temporary file
 * (`.<name>.<random>.tmp`, created exclusively with `mode`) is removed on failure.
 */
export async function replaceFileUnsynced(target: string, content: string, mode: number): Promise<void> {
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${suffix}.tmp`);
  try {
    const handle = await fs.open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, mode);
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, target);
  } catch (error) {
    await fs.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}
