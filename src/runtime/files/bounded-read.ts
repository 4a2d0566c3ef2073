/**
 * Reading a file that someone else put in place: opened once, without
 * blocking and without following a final symbolic link, checked through the
 * opened handle to be the regular file that was expected, and read with a
 * byte budget. Open flags and `fstat` behave the same through `node:fs` on
 * Node, Bun and Deno (Linux and macOS); where a flag does not exist (Windows)
 * it is left out, and the checks on the handle still apply.
 * @module
 */
import fs, { type FileHandle } from "node:fs/promises";
import { constants, type Stats } from "node:fs";
import { errorCode } from "./fs.ts";

/** Which file a path led to: a file replaced by another has another identity. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** Why a bounded read gave up; `detail` says more in words (the kind of file, the error code). */
export type BoundedReadFailure =
  | { ok: false; reason: "missing" }
  | { ok: false; reason: "not-regular"; detail: string }
  | { ok: false; reason: "too-large" }
  | { ok: false; reason: "changed" }
  | { ok: false; reason: "unreadable"; detail: string };

/** The bytes of a regular file no larger than the budget (or its first `budget` bytes, `cut`), or why there are none. */
export type BoundedRead = { ok: true; bytes: Uint8Array; cut?: true } | BoundedReadFailure;

/** What to do with a file larger than the budget: refuse it (the default), or read its first `budget` bytes. */
export type Overflow = "refuse" | "cut";

/**
 * O_NONBLOCK: a FIFO (swapped in after it was checked) opens at once instead
 * of waiting for a writer. O_NOFOLLOW: a final component swapped for a link
 * fails instead of being followed. O_NOCTTY: a terminal never becomes ours.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0) | (constants.O_NOCTTY ?? 0);

/** Bytes asked for per read once the file's reported size is used up (procfs files report 0). */
const CHUNK = 16 * 1024;

/** What a non-regular file is, in words. */
export function fileKind(info: Pick<Stats, "isDirectory" | "isFIFO" | "isCharacterDevice" | "isBlockDevice" | "isSocket" | "isSymbolicLink">): string {
  if (info.isDirectory()) return "a folder";
  if (info.isFIFO()) return "a FIFO";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  if (info.isSymbolicLink()) return "a symbolic link";
  return "an unusual kind of file";
}

/**
 * Reads `path` when it is a regular file of at most `budget` bytes: never
 * more than `budget + 1` bytes are read (a file that grows, or reports a size
 * of 0 like those under /proc, is still cut off), and nothing is read when the
 * opened file is larger, is not a regular file, or — with `expected` — is not
 * the file that was checked before (a swap between check and open).
 */
export async function readRegularFile(path: string, budget: number, expected?: FileIdentity, overflow: Overflow = "refuse"): Promise<BoundedRead> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, OPEN_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    // ELOOP: the last component is now a link (O_NOFOLLOW); ENOENT: gone since it was checked.
    if (expected && (code === "ELOOP" || code === "ENOENT" || code === "ENOTDIR")) return { ok: false, reason: "changed" };
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, reason: "missing" };
    if (code === "ELOOP") return { ok: false, reason: "not-regular", detail: "a symbolic link" };
    // ENXIO: a socket, or a device with nothing behind it.
    if (code === "ENXIO") return { ok: false, reason: "not-regular", detail: "a socket or device" };
    return { ok: false, reason: "unreadable", detail: code ?? (error as Error).message };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, reason: "not-regular", detail: fileKind(info) };
    if (expected && (info.dev !== expected.dev || info.ino !== expected.ino)) return { ok: false, reason: "changed" };
    if (info.size > budget && overflow === "refuse") return { ok: false, reason: "too-large" };
    return await readUpTo(handle, budget, info.size, overflow);
  } catch (error) {
    return { ok: false, reason: "unreadable", detail: errorCode(error) ?? (error as Error).message };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Reads from the start until end of file or `budget + 1` bytes, whichever comes first. */
async function readUpTo(handle: FileHandle, budget: number, reportedSize: number, overflow: Overflow): Promise<BoundedRead> {
  const limit = budget + 1;
  let buffer = new Uint8Array(Math.min(limit, Math.max(reportedSize + 1, CHUNK)));
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) {
      if (buffer.length >= limit) break;
      const grown = new Uint8Array(Math.min(limit, buffer.length * 2));
      grown.set(buffer);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  if (filled <= budget) return { ok: true, bytes: buffer.subarray(0, filled) };
  if (overflow === "refuse") return { ok: false, reason: "too-large" };
  return { ok: true, bytes: buffer.subarray(0, budget), cut: true };
}
