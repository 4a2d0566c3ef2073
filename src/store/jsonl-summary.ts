/**
 * What `list` shows for one session file, read cheaply: the header from the
 * first line, `updatedAt` from the file's mtime, and a title found in the
 * last 64 KiB (newest `title` entry), else the first 64 KiB (a `title`
 * entry, else the first user prompt).
 * @module
 */
import { readFileHead, readFileTail } from "../runtime/files/fs.ts";
import { entriesInWindow, parseHeader } from "./journal-reader.ts";
import { firstPromptTitle, newestTitle } from "./session-title.ts";
import type { SessionSummary } from "./types.ts";

/** How much of each end of a file `list` reads. */
export const TITLE_WINDOW_BYTES = 64 * 1024;

/**
 * The summary of one session file as it was at least at the time `info`
 * (its size and mtime, taken before this call) describes, all but the
 * archived flag (kept beside the file, see archive-marker.ts). Null when the
 * file is not a session this version can list (no or a corrupt header,
 * another id, a newer format); rejects when it cannot be read at all.
 */
export async function readSessionSummary(
  file: string,
  expectedId: string,
  info: { size: number; mtimeMs: number },
): Promise<Omit<SessionSummary, "archived"> | null> {
  const headBytes = await readFileHead(file, TITLE_WINDOW_BYTES);
  const head = new TextDecoder().decode(headBytes);
  // Judged by what was read: the file may have grown since `info` was taken.
  const wholeFile = headBytes.length < TITLE_WINDOW_BYTES;
  const newline = head.indexOf("\n");
  if (newline < 0 && !wholeFile) return null;
  let header;
  try {
    header = parseHeader(newline < 0 ? head : head.slice(0, newline), file);
  } catch {
    return null;
  }
  if (header.id !== expectedId) return null;

  const headEntries = entriesInWindow(head, wholeFile, mayBeTitleOrPrompt);
  let title = wholeFile ? undefined : newestTitle(entriesInWindow(await tailText(file), true, mayBeTitle));
  if (title === undefined) title = newestTitle(headEntries);
  return {
    id: header.id,
    cwd: header.cwd,
    additionalDirectories: header.additionalDirectories,
    ...withTitle(typeof title === "string" ? title : firstPromptTitle(headEntries)),
    createdAt: header.createdAt,
    updatedAt: new Date(info.mtimeMs).toISOString(),
  };
}

/**
 * Parsing every line of two 64 KiB windows is most of what a summary costs;
 * only lines that can hold a title entry or a user prompt are parsed. A line
 * whose keys or values are spelled with `\u` escapes is always parsed.
 */
function mayBeTitle(line: string): boolean {
  return line.includes('"title"') || line.includes("\\u");
}

function mayBeTitleOrPrompt(line: string): boolean {
  return mayBeTitle(line) || line.includes('"user"');
}

async function tailText(file: string): Promise<string> {
  const { bytes } = await readFileTail(file, TITLE_WINDOW_BYTES);
  return new TextDecoder().decode(bytes);
}

function withTitle(title: string | undefined): { title?: string } {
  return title === undefined ? {} : { title };
}
