/**
 * A file linked into a prompt, as the model reads it: the same for a
 * `resource_link` the editor sends and for an `@path` a command file names —
 * its text inside `<resource uri="…">` tags, or a short bracketed note saying
 * why it was not embedded.
 * @module
 */
import type { TextPart } from "../../models/types.ts";

/** Linked files larger than this are not embedded (the read tool can page through them). */
export const LINKED_FILE_LIMIT = 2 * 1024 * 1024;
/** Why a linked file too large was not embedded. */
export const LINK_TOO_LARGE = "larger than 2 MiB, so it was not embedded; use the read tool with an offset";
/** Why a linked file that is not text was not embedded. */
export const LINK_NOT_TEXT = "not UTF-8 text, so it was not embedded";
/** Why a linked FIFO, device or folder was not read. */
export const LINK_NOT_REGULAR = "not a regular file, so it was not read";

/** Text as an embedded resource. */
export function resourceText(uri: string, mimeType: string | null | undefined, text: string): string {
  const type = mimeType ? ` mimeType="${mimeType}"` : "";
  return `<resource uri="${uri}"${type}>\n${text}\n</resource>`;
}

/** The note standing in for a linked file that was not embedded. */
export function linkNote(uri: string, why: string): TextPart {
  return { type: "text", text: `[linked resource ${uri}: ${why}]` };
}

/** The bytes as UTF-8 text, or undefined when they are not. */
export function decodeLinkedText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
