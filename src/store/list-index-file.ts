/**
 * The list index file of one session folder, `<folder>/.list-index.json`: a
 * cache of what `list` shows per session file, keyed by the file's size,
 * mtime, ctime and inode. Never the source of truth: a missing, truncated,
 * garbled or other-version file simply reads as "no index". See
 * docs/storage.md ("List index").
 * @module
 */
import type { SessionSummary } from "./types.ts";

/** The file's name inside each session folder. */
export const LIST_INDEX_NAME = ".list-index.json";
/** The format version this release reads and writes. */
export const LIST_INDEX_VERSION = 1;
/** What `format` says, so a stray JSON file is not taken for an index. */
const FORMAT_NAME = "acp-edge-list-index";
/** An index file larger than this is not read (rebuilt instead): bounds the memory one folder can cost. */
export const MAX_INDEX_FILE_BYTES = 64 * 1024 * 1024;

/** What identifies the version of a session file an entry was made from. */
export interface FileKey {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

/** One session file as indexed. `summary` null: the file is not a listable session (kept so it is not re-read). */
export interface IndexEntry extends FileKey {
  /** The file name without `.jsonl` (the session id). */
  id: string;
  /** When (ms since the epoch) the file's stat was taken, before it was read. */
  checkedAt: number;
  summary: SessionSummary | null;
}

/** What reading an index file found. */
export type IndexFileContent =
  | { kind: "entries"; entries: IndexEntry[] }
  /** Written by a newer release: not used and not overwritten. */
  | { kind: "newer" }
  /** Missing, truncated, garbled or from an older release: rebuilt. */
  | { kind: "invalid" };

/** The index file's text for `entries`; the summary's `updatedAt` is not stored (it is the key's mtime). */
export function serialiseIndex(entries: Iterable<IndexEntry>): string {
  const rows: unknown[] = [];
  for (const e of entries) {
    const s = e.summary;
    const summary =
      s === null
        ? null
        : {
            cwd: s.cwd,
            additionalDirectories: s.additionalDirectories,
            createdAt: s.createdAt,
            ...(s.title === undefined ? {} : { title: s.title }),
            ...(s.archived ? { archived: true } : {}),
          };
    rows.push({ id: e.id, size: e.size, mtimeMs: e.mtimeMs, ctimeMs: e.ctimeMs, ino: e.ino, checkedAt: e.checkedAt, summary });
  }
  return `${JSON.stringify({ format: FORMAT_NAME, version: LIST_INDEX_VERSION, entries: rows })}\n`;
}

/** Parses an index file's text; anything not exactly as `serialiseIndex` writes it is "invalid". */
export function parseIndex(text: string): IndexFileContent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "invalid" };
  }
  if (!isRecord(value) || value.format !== FORMAT_NAME || !Number.isSafeInteger(value.version)) return { kind: "invalid" };
  if ((value.version as number) > LIST_INDEX_VERSION) return { kind: "newer" };
  if (value.version !== LIST_INDEX_VERSION || !Array.isArray(value.entries)) return { kind: "invalid" };
  const entries: IndexEntry[] = [];
  for (const row of value.entries) {
    const entry = entryOf(row);
    if (!entry) return { kind: "invalid" };
    entries.push(entry);
  }
  return { kind: "entries", entries };
}

function entryOf(row: unknown): IndexEntry | undefined {
  if (!isRecord(row)) return undefined;
  const { id, size, mtimeMs, ctimeMs, ino, checkedAt, summary } = row;
  if (typeof id !== "string" || !isNumber(size) || !isNumber(mtimeMs) || !isNumber(ctimeMs) || !isNumber(ino) || !isNumber(checkedAt)) {
    return undefined;
  }
  const key = { id, size, mtimeMs, ctimeMs, ino, checkedAt };
  if (summary === null) return { ...key, summary: null };
  if (!isRecord(summary)) return undefined;
  const { cwd, additionalDirectories, createdAt, title, archived = false } = summary;
  const updatedAt = isoOf(mtimeMs);
  if (
    typeof cwd !== "string" ||
    typeof createdAt !== "string" ||
    !Array.isArray(additionalDirectories) ||
    !additionalDirectories.every((d) => typeof d === "string") ||
    (title !== undefined && typeof title !== "string") ||
    typeof archived !== "boolean" ||
    updatedAt === undefined
  ) {
    return undefined;
  }
  const parsed: SessionSummary = {
    id,
    cwd,
    additionalDirectories: additionalDirectories as string[],
    ...(title === undefined ? {} : { title }),
    createdAt,
    updatedAt,
    archived,
  };
  return { ...key, summary: parsed };
}

function isoOf(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
