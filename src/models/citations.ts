/**
 * The sources an answer cites, as the user reads them after it: one Markdown list, each link once, bounded.
 * The engine streams it after the answer and a replay shows it again from the stored message.
 * @module
 */
import type { Citation } from "./types.ts";

/** A long answer may cite the same few pages many times; the list stays readable. */
const MAX_SOURCES = 20;

/** Each URL once, in first-cited order, at most `MAX_SOURCES`. */
export function distinctCitations(citations: readonly Citation[]): Citation[] {
  const seen = new Set<string>();
  const out: Citation[] = [];
  for (const citation of citations) {
    if (seen.has(citation.url)) continue;
    seen.add(citation.url);
    out.push(citation);
    if (out.length >= MAX_SOURCES) break;
  }
  return out;
}

/** The "Sources" list that follows an answer, or "" when it cites nothing. */
export function sourcesText(citations: readonly Citation[] | undefined): string {
  const list = distinctCitations(citations ?? []);
  if (list.length === 0) return "";
  return `\n\nSources:\n${list.map((c) => `- [${markdownLabel(c.title ?? c.url)}](${c.url.replace(/[()\s]/g, encodeURIComponent)})`).join("\n")}\n`;
}

/** A title as link text: brackets and line breaks would end the link early. */
function markdownLabel(text: string): string {
  return text.replace(/[\[\]\r\n]+/g, " ").trim() || "source";
}
