/**
 * A session's title for listings: the newest `title` entry, else the first
 * line of the user's first prompt. Entries are read loosely (they may come
 * from a partial window of the file), so nothing here throws.
 * @module
 */

/** Titles derived from a prompt are cut to this many characters, `…` included. */
const PROMPT_TITLE_LENGTH = 80;

/**
 * What the newest `title` entry among `entries` says: a string to use,
 * `null` when it cleared the title, undefined when there is none.
 */
export function newestTitle(entries: readonly unknown[]): string | null | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (!isObject(entry) || entry.type !== "title") continue;
    return typeof entry.title === "string" && entry.title.trim() !== "" ? entry.title : null;
  }
  return undefined;
}

/** The first line of the first user message's first text part, cut to 80 characters. */
export function firstPromptTitle(entries: readonly unknown[]): string | undefined {
  for (const entry of entries) {
    if (!isObject(entry) || entry.type !== "message" || !isObject(entry.message) || entry.message.role !== "user") continue;
    const text = firstText(entry.message.content);
    if (text === undefined) continue;
    const line = text.trim().split(/\r?\n/, 1)[0]?.trim() ?? "";
    if (line === "") continue;
    const chars = Array.from(line);
    return chars.length <= PROMPT_TITLE_LENGTH ? line : `${chars.slice(0, PROMPT_TITLE_LENGTH - 1).join("")}…`;
  }
  return undefined;
}

/** The title of a session whose entries are all at hand (the memory store). */
export function titleOf(entries: readonly unknown[]): string | undefined {
  return newestTitle(entries) ?? firstPromptTitle(entries);
}

function firstText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  for (const part of content) {
    if (isObject(part) && part.type === "text" && typeof part.text === "string") return part.text;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
