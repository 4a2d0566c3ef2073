/**
 * The tag the `fetch` tool wraps a page in, and the ways page text is kept
 * from closing or reopening it. Each result's tag carries a random suffix
 * (`untrusted-web-content-3f9a1c0b`) that the header names: a page cannot
 * guess it, so no spelling game (look-alike letters, unlisted invisible
 * characters) can end the region. Known spellings are neutralised all the
 * same: every would-be tag (a `<`, or a full-width or small `<`, up to the
 * next `<` or `>`) loses its default-ignorable code points, and one that
 * then reads as the tag — any case, blanks, slashes before the words, `-`,
 * `_`, blanks or nothing between them — loses its `<`. One character class
 * before the words, never two quantifiers in a row, and each character
 * belongs to one would-be tag: a `<` followed by 40,000 blanks costs a pass
 * over them, not a square.
 * @module
 */
import { randomHex } from "../../runtime/random-hex.ts";

/** The element name that marks where untrusted web content begins and ends, before its suffix. */
export const UNTRUSTED_TAG = "untrusted-web-content";

/** A tag name for one result: UNTRUSTED_TAG and a random suffix. */
export function untrustedTag(): string {
  return `${UNTRUSTED_TAG}-${randomHex(4)}`;
}

const LEADS = "<\\uff1c\\ufe64";
/** From a `<` (or a look-alike) to just before the next `<` or `>`. */
const WOULD_BE_TAG = new RegExp(`[${LEADS}][^${LEADS}>\\uff1e]*`, "gu");
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const MARKER = /^.[\s\\/]*untrusted[\s_-]*web[\s_-]*content/iu;

/** `text` with every spelling of the marker tag made plain text (`&lt;untrusted-web-content`). */
export function neutraliseMarkers(text: string): string {
  return text.replace(WOULD_BE_TAG, (run) => {
    const visible = run.replace(IGNORABLE, "");
    return MARKER.test(visible) ? `&lt;${visible.slice(1)}` : run;
  });
}
