/**
 * The tag the `fetch` tool wraps a page in, and the one way page text is
 * kept from closing or reopening it: every spelling a reader could take for
 * the tag (any case, blanks, slashes or invisible characters before the
 * words, `-`, `_`, blanks or nothing between them, a full-width `<`) loses
 * its `<`. One character class before the words, never two quantifiers in a
 * row: a `<` followed by 40,000 blanks costs a pass over them, not a square.
 * @module
 */

/** The element name that marks where untrusted web content begins and ends. */
export const UNTRUSTED_TAG = "untrusted-web-content";

/** Invisible characters that could be slipped between a tag's letters. */
const INVISIBLE = "\\u00ad\\u200b-\\u200f\\u2060\\ufeff";
const MARKER = new RegExp(`[<\\uff1c\\ufe64](?=[\\s${INVISIBLE}\\\\/]*untrusted[\\s${INVISIBLE}_-]*web[\\s${INVISIBLE}_-]*content)`, "giu");

/** `text` with every spelling of the marker tag made plain text (`&lt;untrusted-web-content`). */
export function neutraliseMarkers(text: string): string {
  return text.replace(MARKER, "&lt;");
}
