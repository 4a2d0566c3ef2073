/**
 * Finding an edit's `oldText` in a file: exactly first, then after
 * normalising away the differences models typically introduce (trailing
 * spaces, smart quotes, Unicode dashes and spaces, compatibility forms). A
 * normalised match is mapped back to the original text's offsets, so only the
 * matched region is replaced and the rest of the file stays byte-identical.
 * @module
 */

/** Where `oldText` is, as offsets into the searched text. */
export type FindResult =
  | { kind: "unique"; start: number; end: number; fuzzy: boolean }
  | { kind: "missing" }
  | { kind: "ambiguous"; occurrences: number; fuzzy: boolean };

/** Text after fuzzy normalisation, with each UTF-16 unit's source span in the original. */
export interface NormalizedText {
  text: string;
  /** Original offset where the segment that produced unit `i` starts. */
  from: Int32Array;
  /** Original offset where that segment ends. */
  to: Int32Array;
}

// Marks and Hangul medial/final jamo compose with what precedes them, so NFKC must see them together.
const CONTINUATION = /^[\p{M}\u1160-\u11FF]$/u;
const WHITESPACE = /^\s$/u;

function mapChar(code: number): number {
  if (code >= 0x2018 && code <= 0x201b) return 0x27; // ‘ ’ ‚ ‛ → '
  if (code >= 0x201c && code <= 0x201f) return 0x22; // “ ” „ ‟ → "
  if ((code >= 0x2010 && code <= 0x2015) || code === 0x2212) return 0x2d; // hyphens, dashes, minus → -
  if (code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000) {
    return 0x20;
  }
  return code;
}

function isTrailingSpace(code: number): boolean {
  if (code === 0x20 || code === 0x09) return true;
  if (code === 0x0a) return false;
  return (code < 0x80 ? code === 0x0b || code === 0x0c || code === 0x0d : WHITESPACE.test(String.fromCharCode(code)));
}

// Per-BMP-code-point answers (0 unknown, 1 no, 2 yes): the regex is the slow part on large files.
const continuationCache = new Uint8Array(0x10000);

function isContinuation(text: string, at: number): boolean {
  const code = text.codePointAt(at)!;
  if (code < 0x300) return false;
  if (code > 0xffff) return CONTINUATION.test(String.fromCodePoint(code));
  let known = continuationCache[code]!;
  if (known === 0) {
    known = CONTINUATION.test(String.fromCharCode(code)) ? 2 : 1;
    continuationCache[code] = known;
  }
  return known === 2;
}

/**
 * NFKC, smart quotes → ASCII, Unicode dashes → `-`, special spaces → space,
 * and trailing whitespace removed from every line. Works on segments (a
 * character with its combining marks) so every output unit knows which part
 * of the original it came from.
 */
export function normalizeForMatch(text: string): NormalizedText {
  // Typed arrays grown on demand: plain arrays of numbers made large files slow.
  let capacity = text.length + 16;
  let units = new Uint16Array(capacity);
  let from = new Int32Array(capacity);
  let to = new Int32Array(capacity);
  let length = 0;
  const push = (unit: number, start: number, end: number) => {
    if (length === capacity) {
      capacity *= 2;
      const [u, f, t] = [new Uint16Array(capacity), new Int32Array(capacity), new Int32Array(capacity)];
      u.set(units);
      f.set(from);
      t.set(to);
      [units, from, to] = [u, f, t];
    }
    if (unit === 0x0a) while (length > 0 && isTrailingSpace(units[length - 1]!)) length--;
    units[length] = unit;
    from[length] = start;
    to[length] = end;
    length++;
  };
  // Files repeat the same few non-ASCII characters; normalise each distinct one once.
  const segments = new Map<string, string>();
  let surrogates = false;
  let i = 0;
  while (i < text.length) {
    const start = i;
    const code = text.charCodeAt(i);
    if (code < 0x80 && !(i + 1 < text.length && text.charCodeAt(i + 1) >= 0x300 && isContinuation(text, i + 1))) {
      // ASCII is NFKC-stable and untouched by the character map.
      i++;
      if (code === 0x0a || length === capacity) {
        push(code, start, i);
      } else {
        units[length] = code;
        from[length] = start;
        to[length] = i;
        length++;
      }
      continue;
    }
    i += code >= 0xd800 && code <= 0xdbff && i + 1 < text.length ? 2 : 1;
    while (i < text.length && isContinuation(text, i)) i += text.codePointAt(i)! > 0xffff ? 2 : 1;
    const segment = text.slice(start, i);
    let normalized = segments.get(segment);
    if (normalized === undefined) {
      normalized = "";
      for (const char of segment.normalize("NFKC")) normalized += String.fromCharCode(mapChar(char.charCodeAt(0))) + char.slice(1);
      segments.set(segment, normalized);
    }
    for (let k = 0; k < normalized.length; k++) {
      const unit = normalized.charCodeAt(k);
      if (unit >= 0xd800 && unit <= 0xdfff) surrogates = true;
      push(unit, start, i);
    }
  }
  while (length > 0 && isTrailingSpace(units[length - 1]!)) length--;
  return { text: unitsToString(units.subarray(0, length), surrogates), from: from.slice(0, length), to: to.slice(0, length) };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function unitsToString(units: Uint16Array, surrogates: boolean): string {
  // The decoder is much faster, but it reads bytes (so only on little-endian
  // hosts) and would turn a lone surrogate into U+FFFD.
  if (!surrogates && LITTLE_ENDIAN) return new TextDecoder("utf-16le").decode(units);
  let out = "";
  for (let k = 0; k < units.length; k += 0x8000) out += String.fromCharCode(...units.subarray(k, k + 0x8000));
  return out;
}

/** How many times `needle` occurs in `haystack`, overlapping occurrences included (each is a different place). */
export function countOccurrences(haystack: string, needle: string): number {
  if (needle === "") return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}

/**
 * A finder over one text: `find(oldText)` tries an exact match, then a
 * normalised one (computed once, on first need). A match must be unique to
 * be used; otherwise the result says whether it was missing or ambiguous.
 */
export function createMatcher(content: string): (needle: string) => FindResult {
  let normalized: NormalizedText | undefined;
  return (needle) => {
    if (needle === "") return { kind: "missing" };
    const exact = content.indexOf(needle);
    if (exact !== -1) {
      const occurrences = countOccurrences(content, needle);
      if (occurrences > 1) return { kind: "ambiguous", occurrences, fuzzy: false };
      return { kind: "unique", start: exact, end: exact + needle.length, fuzzy: false };
    }
    normalized ??= normalizeForMatch(content);
    return findNormalized(normalized, normalizeForMatch(needle).text);
  };
}

/** `createMatcher(content)(needle)`, for a single search. */
export function findText(content: string, needle: string): FindResult {
  return createMatcher(content)(needle);
}

function findNormalized(haystack: NormalizedText, needle: string): FindResult {
  if (needle === "") return { kind: "missing" };
  const { text, from, to } = haystack;
  // A match must begin and end on segment boundaries: half of a ligature or of
  // a decomposed character cannot be replaced on its own.
  const startsSegment = (i: number) => i === 0 || from[i] !== from[i - 1];
  const endsSegment = (i: number) => i === text.length - 1 || from[i + 1] !== from[i];
  let occurrences = 0;
  let first = -1;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    if (!startsSegment(at) || !endsSegment(at + needle.length - 1)) continue;
    if (occurrences === 0) first = at;
    occurrences++;
  }
  if (occurrences === 0) return { kind: "missing" };
  if (occurrences > 1) return { kind: "ambiguous", occurrences, fuzzy: true };
  return { kind: "unique", start: from[first]!, end: to[first + needle.length - 1]!, fuzzy: true };
}
