/**
 * Parsing a session file: the header line, then one entry per line. Damage
 * never costs more than the damaged line: a torn last line (a write that was
 * never acknowledged) is dropped silently, a bad line elsewhere is skipped
 * with a warning, and unknown entry types are kept.
 * @module
 */
import { STORE_FORMAT_VERSION, StoreError, type LoadedSession, type SessionHeader, type StoredEntry } from "./types.ts";

/** A parsed file, plus whether it ends cleanly (the next append must start a new line otherwise). */
export interface ParsedJournal extends LoadedSession {
  endsWithNewline: boolean;
}

/**
 * Parses a whole session file. `file` names it in messages. Throws
 * StoreError "corrupt" (empty file, no valid header, header of another id)
 * or "newer_format".
 */
export function parseJournal(text: string, file: string, expectedId?: string): ParsedJournal {
  const lines = text.split("\n");
  const endsWithNewline = text.endsWith("\n");
  // After a final "\n" split() yields one empty string; without it, the last element is an unterminated line.
  const last = lines.length - 1;
  if (text === "") throw corrupt(file, "is empty");
  const header = parseHeader(lines[0] ?? "", file);
  if (expectedId !== undefined && header.id !== expectedId) {
    throw corrupt(file, `has a header for session ${header.id}, not ${expectedId}`);
  }
  const entries: StoredEntry[] = [];
  const warnings: string[] = [];
  for (let i = 1; i <= last; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    const entry = parseEntryLine(line);
    if (typeof entry !== "string") entries.push(entry);
    else if (i < last) warnings.push(`line ${i + 1} ${entry} and was skipped`);
    // i === last: an unterminated bad line is a torn write that nobody was told had succeeded.
  }
  return { header, entries, warnings, endsWithNewline };
}

/** Parses a header line. Throws StoreError "corrupt" or "newer_format". */
export function parseHeader(line: string, file: string): SessionHeader {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw corrupt(file, "has no valid header");
  }
  if (!isRecord(value) || value.type !== "session") throw corrupt(file, "has no valid header");
  const { version, id, cwd, createdAt, additionalDirectories, forkedFrom } = value;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw corrupt(file, "has no valid header (bad format version)");
  }
  if (version > STORE_FORMAT_VERSION) {
    throw new StoreError(
      "newer_format",
      `session ${typeof id === "string" ? id : file} was written by a newer acp-edge (format ${version}; this version reads format ${STORE_FORMAT_VERSION})`,
    );
  }
  const directories = additionalDirectories ?? [];
  if (
    typeof id !== "string" ||
    typeof cwd !== "string" ||
    typeof createdAt !== "string" ||
    !Array.isArray(directories) ||
    !directories.every((d) => typeof d === "string") ||
    (forkedFrom !== undefined && typeof forkedFrom !== "string")
  ) {
    throw corrupt(file, "has no valid header (missing or mistyped fields)");
  }
  return {
    // Unknown header fields of the same version are kept, like unknown entry types.
    ...value,
    type: "session",
    version,
    id,
    cwd,
    additionalDirectories: directories as string[],
    createdAt,
    ...(forkedFrom === undefined ? {} : { forkedFrom }),
  };
}

/** One entry line: the entry, or why it is not one ("was not valid JSON", …). */
export function parseEntryLine(line: string): StoredEntry | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return "was not valid JSON";
  }
  if (!isRecord(value) || typeof value.type !== "string") return 'was not an entry (a JSON object with a string "type")';
  return value as StoredEntry;
}

/**
 * The entries found in a window of a file (for titles in listings): the
 * first line (header or cut), a line cut by the window's end, and lines that
 * do not parse are left out, and so are lines `mayMatter` rules out unparsed.
 */
export function entriesInWindow(text: string, endsAtFileEnd: boolean, mayMatter: (line: string) => boolean = () => true): StoredEntry[] {
  const lines = text.split("\n");
  const to = endsAtFileEnd ? lines.length : lines.length - 1;
  const entries: StoredEntry[] = [];
  // Line 0 is the header, or a line cut by the window's start: never an entry to trust.
  for (let i = 1; i < to; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "" || !mayMatter(line)) continue;
    const entry = parseEntryLine(line);
    if (typeof entry !== "string") entries.push(entry);
  }
  return entries;
}

function corrupt(file: string, what: string): StoreError {
  return new StoreError("corrupt", `session file ${file} ${what}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
