/**
 * The one way to read a file the agent opens on its own (instructions,
 * templates, project settings, ignore rules): a repository decides what is
 * at those names, and it may be a link to /proc, a device, a FIFO, a huge
 * file or a file elsewhere on the machine. The path is resolved (links
 * followed) and must land inside the given areas; what it leads to must be a
 * regular file; it is opened once and read with a byte budget
 * (`readRegularFile`). Anything else is not read, and the caller gets the
 * reason to tell the user — never the content.
 *
 * A hard link is a regular file like any other: one inside the areas that
 * shares its inode with a file elsewhere is read. Only the repository's
 * author can create one, on the machine that holds the clone (git stores no
 * hard links), so it cannot point at the user's files from a clone.
 * @module
 */
import fs from "node:fs/promises";
import type { Stats } from "node:fs";
import { readRegularFile, fileKind, type Overflow } from "./bounded-read.ts";
import { errorCode, isNotFound } from "./fs.ts";
import { containingRoot } from "./path.ts";

/** Why a file was not read. `missing` is no file at all: callers usually say nothing about it. */
export type ConfinedReadFailure =
  | { ok: false; reason: "missing" }
  | { ok: false; reason: "dangling" }
  | { ok: false; reason: "outside" }
  | { ok: false; reason: "not-regular"; detail: string }
  | { ok: false; reason: "too-large" }
  | { ok: false; reason: "changed" }
  | { ok: false; reason: "unreadable"; detail: string };

/** A file's text, or why it was not read. */
export type ConfinedRead = { ok: true; text: string; realPath: string; cut?: true } | ConfinedReadFailure;

/** Where a path may lead and how much of it may be read. */
export interface ConfinedReadOptions {
  /** Resolved folders (see `resolveAreas`) the path must lead into once its links are followed. */
  areas: readonly string[];
  /** Bytes; a larger file is not read at all, unless `overflow` is `cut`. */
  budget: number;
  /** `cut`: a larger file's first `budget` bytes are read (whole characters only) and the result says `cut`. */
  overflow?: Overflow;
}

/** Where a path leads, when that is inside the areas: the resolved path and what is there (not followed further). */
export type ConfinedLocation = { ok: true; realPath: string; info: Stats } | Exclude<ConfinedReadFailure, { reason: "too-large" }>;

/** The existing folders of `paths`, each resolved (links followed), without duplicates. */
export async function resolveAreas(paths: readonly string[]): Promise<string[]> {
  const areas: string[] = [];
  for (const path of paths) {
    const real = await fs.realpath(path).catch(() => undefined);
    if (real !== undefined && !areas.includes(real)) areas.push(real);
  }
  return areas;
}

/** Resolves `path` and checks it lands inside `areas`; describes what is there without opening it. */
export async function locateConfined(path: string, areas: readonly string[]): Promise<ConfinedLocation> {
  let realPath: string;
  try {
    realPath = await fs.realpath(path);
  } catch (error) {
    if (isNotFound(error)) {
      const link = await fs.lstat(path).catch(() => undefined);
      return link?.isSymbolicLink() ? { ok: false, reason: "dangling" } : { ok: false, reason: "missing" };
    }
    const code = errorCode(error);
    return { ok: false, reason: "unreadable", detail: code === "ELOOP" ? "a symbolic link loop" : (code ?? (error as Error).message) };
  }
  if (containingRoot(realPath, areas) === undefined) return { ok: false, reason: "outside" };
  try {
    return { ok: true, realPath, info: await fs.lstat(realPath) };
  } catch (error) {
    // It resolved a moment ago: something moved it.
    return isNotFound(error) ? { ok: false, reason: "changed" } : { ok: false, reason: "unreadable", detail: errorCode(error) ?? (error as Error).message };
  }
}

/** A file's bytes, or why they were not read. */
export type ConfinedBytes = { ok: true; bytes: Uint8Array; realPath: string; cut?: true } | ConfinedReadFailure;

/** Reads a file the agent opens on its own as bytes (for callers that decide how to decode): the rules of `readConfinedFile`. */
export async function readConfinedBytes(path: string, options: ConfinedReadOptions): Promise<ConfinedBytes> {
  const located = await locateConfined(path, options.areas);
  if (!located.ok) return located;
  const { realPath, info } = located;
  // Checked before opening, so a FIFO or device is never opened at all (opening some devices has effects).
  if (!info.isFile()) return { ok: false, reason: "not-regular", detail: fileKind(info) };
  const overflow = options.overflow ?? "refuse";
  if (info.size > options.budget && overflow === "refuse") return { ok: false, reason: "too-large" };
  const read = await readRegularFile(realPath, options.budget, { dev: info.dev, ino: info.ino }, overflow);
  if (!read.ok) return read.reason === "missing" ? { ok: false, reason: "changed" } : read;
  return read.cut ? { ok: true, bytes: read.bytes, realPath, cut: true } : { ok: true, bytes: read.bytes, realPath };
}

/** Reads a file the agent opens on its own: see the module comment for every rule applied. */
export async function readConfinedFile(path: string, options: ConfinedReadOptions): Promise<ConfinedRead> {
  const read = await readConfinedBytes(path, options);
  if (!read.ok) return read;
  if (!read.cut) return { ok: true, text: new TextDecoder().decode(read.bytes), realPath: read.realPath };
  // A character cut in two at the budget is dropped rather than shown as a replacement character.
  return { ok: true, text: new TextDecoder().decode(read.bytes, { stream: true }), realPath: read.realPath, cut: true };
}

/** A byte count as people read it: `64 KiB`, `1 MiB`. */
function formatBudget(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * Why a file was not read, in words that finish "… was not read: ". `areaName`
 * names where it may lead ("the project"), `budget` the size limit applied.
 */
export function describeSkip(failure: ConfinedReadFailure, areaName: string, budget: number): string {
  switch (failure.reason) {
    case "missing":
      return "it does not exist";
    case "dangling":
      return "it is a symbolic link to nothing";
    case "outside":
      return `it leads outside ${areaName}`;
    case "not-regular":
      return `it is not a regular file (${failure.detail})`;
    case "too-large":
      return `it is larger than ${formatBudget(budget)}`;
    case "changed":
      return "it changed while it was being opened";
    case "unreadable":
      return `it cannot be read (${failure.detail})`;
  }
}
