/**
 * One `.gitignore` pattern (git's wildmatch syntax) as picomatch globs with
 * the same meaning, so it runs on the linear-time engine through
 * `globMatcher`. Everything that is not a wildcard is escaped (picomatch's
 * braces, extglobs and parentheses mean nothing in git); wildcards follow
 * wildmatch's rules, including where they differ from picomatch's:
 * - `**` is a globstar only between slashes or at an end, and also right
 *   after the pattern's leading literal part (git compares that part before
 *   it calls wildmatch, which then sees the `**` at its start): `a**`
 *   then `/b` matches `ab`, `a/b` and `ax/y/b`. Elsewhere it is `*`.
 * - A trailing `/**` matches what is inside, not the directory itself.
 * - A bracket expression never matches `/`; a malformed one (unterminated,
 *   an unknown `[:class:]`), like a trailing lone `\`, makes the pattern
 *   match nothing. POSIX classes are ASCII, as in git. With case folding an
 *   upper-case letter listed alone in brackets matches nothing, as in git.
 * - Matching is by byte, as in git: patterns and paths are compared as
 *   `byteChars` (see there), so `?` matches one byte of `é`, not both.
 * @module
 */

/** Inclusive ranges of byte-chars (see `byteChars`). */
type Ranges = Array<[number, number]>;

type Token =
  | { kind: "literal"; char: string }
  | { kind: "any" }
  | { kind: "star" }
  | { kind: "globstar"; afterPrefix: boolean; before: "start" | "slash"; next: "slash" | "escaped-slash" | "end" }
  | { kind: "class"; negated: boolean; members: Ranges };

/** Where non-ASCII bytes go in a byte-char string: a private-use block, which no case folding touches. */
const BYTE_BASE = 0xe000;
const NON_ASCII = /[^\x00-\x7f]/;
const encoder = new TextEncoder();

/**
 * `text` with every non-ASCII character replaced by its UTF-8 bytes, each
 * byte b ≥ 0x80 as the character U+E000+b. git matches bytes; on such
 * strings a one-character wildcard matches one byte, as it does in git.
 */
export function byteChars(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  let out = "";
  for (const byte of encoder.encode(text)) out += String.fromCharCode(byte < 0x80 ? byte : BYTE_BASE + byte);
  return out;
}

/** git's character classes (its own ASCII ctype table). */
const POSIX_CLASSES: Record<string, Ranges> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: [[0x30, 0x39]],
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0a], [0x0d, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

const SLASH = 0x2f;
const isUpperAscii = (code: number) => code >= 0x41 && code <= 0x5a;

/** The bracket expression starting at `start` (a `[`), as wildmatch reads it; undefined when malformed. */
function readClass(p: string, start: number, ignoreCase: boolean): { token: Token; end: number } | undefined {
  const members: Ranges = [];
  let k = start + 1;
  const negated = p[k] === "!" || p[k] === "^";
  if (negated) k++;
  let previous: number | undefined;
  for (;;) {
    if (k >= p.length) return undefined;
    let char = p[k]!;
    let next: number | undefined;
    if (char === "\\") {
      k++;
      if (k >= p.length) return undefined;
      char = p[k]!;
      next = char.charCodeAt(0);
      // Folding lowers the path's character but not the listed one, so git never matches it.
      if (!(ignoreCase && isUpperAscii(next))) members.push([next, next]);
    } else if (char === "-" && previous !== undefined && k + 1 < p.length && p[k + 1] !== "]") {
      k++;
      let high = p[k]!;
      if (high === "\\") {
        k++;
        if (k >= p.length) return undefined;
        high = p[k]!;
      }
      if (previous <= high.charCodeAt(0)) members.push([previous, high.charCodeAt(0)]);
    } else if (char === "[" && p[k + 1] === ":") {
      const nameStart = k + 2;
      let close = nameStart;
      while (close < p.length && p[close] !== "]") close++;
      if (close >= p.length) return undefined;
      if (close - nameStart - 1 < 0 || p[close - 1] !== ":") {
        // No `:]`: the `[` is an ordinary member and reading goes on after it.
        members.push([0x5b, 0x5b]);
        next = 0x5b;
      } else {
        const ranges = POSIX_CLASSES[p.slice(nameStart, close - 1)];
        if (!ranges) return undefined;
        members.push(...ranges);
        k = close;
      }
    } else {
      next = char.charCodeAt(0);
      if (!(ignoreCase && isUpperAscii(next))) members.push([next, next]);
    }
    previous = next;
    k++;
    if (k < p.length && p[k] === "]") return { token: { kind: "class", negated, members }, end: k + 1 };
  }
}

/** Where the star run `[start, end)` stands, or undefined when it is an ordinary `*`. */
function globstarAt(p: string, start: number, end: number, prefixLength: number): Token | undefined {
  if (end - start < 2) return undefined;
  const before = start === 0 ? "start" : p[start - 1] === "/" ? "slash" : start === prefixLength ? "start" : undefined;
  const next = end === p.length ? "end" : p[end] === "/" ? "slash" : p[end] === "\\" && p[end + 1] === "/" ? "escaped-slash" : undefined;
  if (!before || !next) return undefined;
  return { kind: "globstar", afterPrefix: start !== 0 && p[start - 1] !== "/", before, next };
}

/**
 * Tokens of a pattern (byte-chars); undefined when it can match nothing.
 * `prefixLength` is where git's literal comparison stops (-1 for a pattern
 * matched against base names, where every star run is `*`).
 */
function tokenize(p: string, prefixLength: number, ignoreCase: boolean): Token[] | undefined {
  const tokens: Token[] = [];
  for (let i = 0; i < p.length; ) {
    const char = p[i]!;
    if (char === "\\") {
      if (i + 1 >= p.length) return undefined;
      tokens.push({ kind: "literal", char: p[i + 1]! });
      i += 2;
    } else if (char === "?") {
      tokens.push({ kind: "any" });
      i++;
    } else if (char === "*") {
      let end = i;
      while (p[end] === "*") end++;
      tokens.push((prefixLength >= 0 && globstarAt(p, i, end, prefixLength)) || { kind: "star" });
      i = end;
    } else if (char === "[") {
      const read = readClass(p, i, ignoreCase);
      if (!read) return undefined;
      tokens.push(read.token);
      i = read.end;
    } else {
      tokens.push({ kind: "literal", char });
      i++;
    }
  }
  return tokens;
}

const ALNUM = /^[0-9A-Za-z]$/;
const ASCII_PUNCTUATION = /^[!-~]$/;

/**
 * A character for picomatch, taken literally. A backslash goes as a one-character class: picomatch collapses runs
 * of backslashes (and never returns on a run of four at the end of a glob).
 */
function escape(char: string): string {
  if (char === "\\") return classGlob(false, [[0x5c, 0x5c]])!;
  return ASCII_PUNCTUATION.test(char) && !ALNUM.test(char) ? `\\${char}` : char;
}

/** A class member for picomatch: ASCII other than letters and digits as `\xHH`, so no escape runs into another. */
function member(code: number): string {
  const char = String.fromCharCode(code);
  return code < 0x80 && !ALNUM.test(char) ? `\\x${code.toString(16).padStart(2, "0")}` : char;
}

/**
 * A bracket expression for picomatch that never matches `/`; undefined when it matches nothing. Every member is
 * written as a range (`a-a`): picomatch also matches a bracket without any range or regex character literally,
 * brackets included.
 */
function classGlob(negated: boolean, members: Ranges): string | undefined {
  const ranges: Ranges = [];
  for (const [low, high] of members) {
    // A listed class excludes `/` by dropping it; a negated one by listing it.
    if (!negated && low <= SLASH && SLASH <= high) {
      if (low < SLASH) ranges.push([low, SLASH - 1]);
      if (high > SLASH) ranges.push([SLASH + 1, high]);
    } else ranges.push([low, high]);
  }
  if (!negated && ranges.length === 0) return undefined;
  const body = ranges.map(([low, high]) => `${member(low)}-${member(high)}`).join("");
  return negated ? `[^${body}/]` : `[${body}]`;
}

/**
 * `glob` followed by anything at all (a trailing `/**`, or `/**` then `/*`):
 * one more segment, or a segment, a slash and anything (picomatch's `*` then
 * `/**` needs that slash). picomatch's own trailing forms would also match
 * `glob` itself once the walk drops its `(?=.)` assertions.
 */
function anythingAfter(glob: string): string[] {
  // Folders before anything add nothing to it.
  while (glob.endsWith("/**/")) glob = glob.slice(0, -3);
  return [`${glob}*`, `${glob}*/**`];
}

/**
 * One alternative's tokens as globs (any one matching); empty when it can
 * match no path (a leading, trailing or doubled `/`, an empty class).
 */
function toGlobs(tokens: Token[]): string[] {
  const isSlash = (t: Token | undefined) => t?.kind === "literal" && t.char === "/";
  let glob = "";
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (isSlash(token) && (i === 0 || i === tokens.length - 1 || isSlash(tokens[i + 1]))) return [];
    if (token.kind === "literal") glob += token.char === "/" ? "/" : escape(token.char);
    else if (token.kind === "any") glob += "?";
    else if (token.kind === "star" && i === tokens.length - 1 && glob.endsWith("/**/")) return anythingAfter(glob);
    else if (token.kind === "star") glob += "*";
    else if (token.kind === "class") {
      const text = classGlob(token.negated, token.members);
      if (text === undefined) return [];
      glob += text;
    } else if (!token.afterPrefix && (token.next === "slash" || (token.before === "start" && token.next === "end"))) {
      // picomatch's globstar means the same here: `**/` at the start or between slashes, `**` alone.
      glob += "**";
    } else if (token.next === "end") {
      return anythingAfter(glob);
    } else {
      // "Anything, then a slash" (before an escaped slash): a segment, its slash and any folders.
      glob += "*/**";
    }
  }
  return [glob];
}

/**
 * Globs (any one matching) for a pattern: `anchored` patterns are matched
 * against the whole path relative to the ignore file's folder (leading `/`
 * already removed), the others against any path whose last segment they
 * match. Empty when the pattern matches nothing.
 */
export function patternGlobs(pattern: string, options: { anchored: boolean; ignoreCase: boolean }): string[] {
  const p = byteChars(pattern);
  const prefixLength = options.anchored ? simpleLength(p) : -1;
  const tokens = tokenize(p, prefixLength, options.ignoreCase);
  if (!tokens || tokens.length === 0) return [];
  if (!options.anchored) return toGlobs(tokens).map((glob) => `**/${glob}`);
  const alternatives = [tokens];
  const at = tokens.findIndex((t) => t.kind === "globstar" && t.afterPrefix && t.next === "slash");
  // After the literal part, git first tries `**/` as matching nothing at all, its slash included.
  if (at >= 0) alternatives.push([...tokens.slice(0, at), ...tokens.slice(at + 2)]);
  return alternatives.flatMap((alternative) => toGlobs(alternative).filter((glob) => glob !== ""));
}

/** How many leading characters git compares literally: up to the first `*`, `?`, `[` or `\`. */
function simpleLength(p: string): number {
  const found = p.search(/[*?[\\]/);
  return found < 0 ? p.length : found;
}
