/**
 * `.gitignore` rules (via the `ignore` package) matched on the linear-time
 * regex engine. `ignore` turns each rule into a backtracking JavaScript
 * regex; a rule with several `**` (`a/**\/a/**\/a/**\/a/**\/b`) then takes time
 * polynomial in the path depth with the number of `**` as the exponent, and a
 * repository we did not write could stall every walk with one such line.
 *
 * The JavaScript regexes differ from RE2 syntax only in three lookarounds,
 * rewritten here without changing what a walk path matches:
 * - a trailing `(?=$|\/$)` ("then the end, or a final slash") becomes the
 *   same alternatives consumed: whether a match exists is unchanged;
 * - a pinned wildcard `(?:(?!piece)[^\/])*` (the library's guard against
 *   backtracking) becomes `[^\/]*`: a glob match exists with the leftmost
 *   piece whenever it exists at all;
 * - `(?!\/)` before a bracket expression that could match `/` is dropped, so
 *   such a class (e.g. `[!-~]`) may match a `/` where git would not.
 * A rule that still does not compile is reported and treated as absent.
 *
 * This reaches into the pinned `ignore` version's rule objects (`_rules`,
 * `_make`, `_regex`); a test fails if a new version moves them.
 * @module
 */
import type ignore from "ignore";
import { searchEngines } from "./search-engines.ts";
import { log } from "../runtime/log.ts";
import { compileLinearRegex, UnsupportedRegexError } from "./linear-regex.ts";

interface IgnoreRuleInternals {
  pattern: string;
  ignoreCase?: boolean;
  _make(mode: string, key: string): RegExp;
}

const NEVER = { test: () => false };

/** An `ignore` matcher for `text` whose rules run on the linear-time engine. */
export function linearIgnore(text: string, options: { ignorecase: boolean; allowRelativePaths: boolean }): ignore.Ignore {
  const matcher = searchEngines().ignore(options).add(text);
  const rules = (matcher as unknown as { _rules?: { _rules?: IgnoreRuleInternals[] } })._rules?._rules;
  if (!Array.isArray(rules)) throw new Error("the ignore package's rule list moved; linear matching cannot be installed");
  for (const rule of rules) {
    // `_make` builds the regex source without testing anything; `_regex` is where `rule.regex` caches it.
    const regex = rule._make("regex", "_jsRegex");
    let linear: { test(path: string): boolean };
    try {
      linear = compileLinearRegex(toRe2Source(regex.source), { ignoreCase: regex.flags.includes("i") });
    } catch (error) {
      if (!(error instanceof UnsupportedRegexError)) throw error;
      log.warn(`ignore rule ${JSON.stringify(rule.pattern)} cannot be matched in linear time and is skipped: ${error.message}`);
      linear = NEVER;
    }
    Object.defineProperty(rule, "_regex", { value: linear });
  }
  return matcher;
}

const TRAILING_DIR_OR_END = "(?=$|\\/$)";
const NOT_SLASH_GUARD = "(?!\\/)";
const PINNED_START = "(?:(?!";
const PINNED_END = "[^\\/])*";

/** The library's regex source in RE2 syntax (see the module comment). */
export function toRe2Source(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    if (source.startsWith(PINNED_START, i)) {
      const close = closingParen(source, i + PINNED_START.length - 3);
      if (close !== undefined && source.startsWith(PINNED_END, close)) {
        out += "[^\\/]*";
        i = close + PINNED_END.length;
        continue;
      }
    }
    // JavaScript's empty class never matches and `[^]` matches anything; RE2 would read both as the start of a longer class.
    if (source.startsWith("[]", i)) {
      out += "[^\\x{0}-\\x{10FFFF}]";
      i += 2;
      continue;
    }
    if (source.startsWith("[^]", i)) {
      out += "[\\s\\S]";
      i += 3;
      continue;
    }
    if (source.startsWith(TRAILING_DIR_OR_END, i)) {
      out += "(?:$|\\/$)";
      i += TRAILING_DIR_OR_END.length;
      continue;
    }
    if (source.startsWith(NOT_SLASH_GUARD, i) && source[i + NOT_SLASH_GUARD.length] === "[") {
      i += NOT_SLASH_GUARD.length;
      continue;
    }
    const char = source[i]!;
    if (char === "\\") {
      out += source.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (char === "[") {
      const end = classEnd(source, i);
      out += source.slice(i, end);
      i = end;
      continue;
    }
    out += char;
    i++;
  }
  return out;
}

/** Index just after the `)` that closes the group opened at `open`, or undefined. */
function closingParen(source: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") {
      i++;
    } else if (char === "[") {
      i = classEnd(source, i) - 1;
    } else if (char === "(") {
      depth++;
    } else if (char === ")") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

/** Index just after the bracket expression that starts at `start`. */
function classEnd(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === "^") i++;
  if (source[i] === "]") i++;
  for (; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "]") return i + 1;
  }
  return source.length;
}
