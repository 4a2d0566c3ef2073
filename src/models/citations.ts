/**
 * The sources an answer cites, as the user reads them after it: one Markdown list, each link once, bounded.
 * The engine streams it after the answer and a replay shows it again from the stored message.
 * @module
 */
import type { Citation } from "./types.ts";

/** A long answer may cite the same few pages many times; the list stays readable. */
const MAX_SOURCES = 20;

/** The "Sources" list that follows an answer (each URL once, in first-cited order), or "" when it cites nothing. */
export function sourcesText(citations: readonly Citation[] | undefined): string {
  const lines = new Map<string, string>();
  for (const c of citations ?? []) {
    // A title's brackets and line breaks would end the link early.
    if (lines.size < MAX_SOURCES && !lines.has(c.url)) lines.set(c.url, `- [${(c.title ?? c.url).replace(/[[\]\r\n]+/g, " ").trim() || "source"}](${c.url.replace(/[()\s]/g, encodeURIComponent)})`);
  }
  return lines.size > 0 ? `\n\nSources:\n${[...lines.values()].join("\n")}\n` : "";
}
