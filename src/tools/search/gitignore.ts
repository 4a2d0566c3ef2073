/**
 * The rules of one `.gitignore` (or `.git/info/exclude`) file, read as
 * gitignore(5) and git itself read them, and matched on the linear-time
 * engine (each pattern becomes picomatch globs, see gitignore-pattern.ts,
 * run by `globMatcher` on RE2): a repository we did not write cannot stall a
 * walk with a pattern that backtracks.
 *
 * Lines: a UTF-8 byte order mark at the start is skipped; a `\r` before the
 * line break is dropped; blank lines and lines starting with `#` are skipped;
 * trailing spaces are dropped unless escaped (`\ `); `!` negates (`\!` and
 * `\#` start a pattern with a literal `!` or `#`); a trailing `/` makes the
 * rule match directories only; a pattern with a `/` at the start or in the
 * middle is anchored to the file's folder, one without matches a name at any
 * depth. The last matching rule decides. That a path inside an excluded
 * directory cannot be re-included is the walk's part: it does not enter one.
 * @module
 */
import { log } from "../../runtime/log.ts";
import { globMatcher } from "./glob-regex.ts";
import { byteChars, patternGlobs } from "./gitignore-pattern.ts";
import { UnsupportedRegexError } from "./linear-regex.ts";

interface Rule {
  negated: boolean;
  directoriesOnly: boolean;
  matches(path: string): boolean;
}

/** What one ignore file says about a path: ignored, re-included by a `!` rule, or nothing. */
export type IgnoreVerdict = "ignored" | "included" | undefined;

/** Compiled rules of one ignore file. */
export interface IgnoreRules {
  /** The verdict of the last rule matching `path` (POSIX, relative to the file's folder, no trailing slash). */
  verdict(path: string, isDirectory: boolean): IgnoreVerdict;
}

/** The lines of an ignore file that are rules (not blank, not comments), each without its `\r`. */
export function ruleLines(text: string): string[] {
  const lines: string[] = [];
  for (let line of (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n")) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line !== "" && !line.startsWith("#")) lines.push(line);
  }
  return lines;
}

/** Parses an ignore file's rule lines (see `ruleLines`); `ignoreCase` is git's `core.ignorecase`. */
export function parseIgnoreRules(lines: readonly string[], options: { ignoreCase: boolean }): IgnoreRules {
  const rules: Rule[] = [];
  for (const line of lines) {
    const rule = compileRule(line, options.ignoreCase);
    if (rule) rules.push(rule);
  }
  return {
    verdict(path, isDirectory) {
      const subject = byteChars(path);
      for (let i = rules.length - 1; i >= 0; i--) {
        const rule = rules[i]!;
        if (rule.directoriesOnly && !isDirectory) continue;
        if (rule.matches(subject)) return rule.negated ? "included" : "ignored";
      }
      return undefined;
    },
  };
}

/** One line as a rule; undefined when it can match nothing. */
function compileRule(line: string, ignoreCase: boolean): Rule | undefined {
  // git reads each line as a C string.
  let pattern = trimTrailingSpaces(line.split("\0", 1)[0]!);
  const negated = pattern.startsWith("!");
  if (negated) pattern = pattern.slice(1);
  const directoriesOnly = pattern.endsWith("/");
  if (directoriesOnly) pattern = pattern.slice(0, -1);
  const anchored = pattern.includes("/");
  if (pattern.startsWith("/")) pattern = pattern.slice(1);
  const globs = patternGlobs(pattern, { anchored, ignoreCase });
  const matchers: Array<(path: string) => boolean> = [];
  for (const glob of globs) {
    try {
      matchers.push(globMatcher(glob, { ignoreCase }));
    } catch (error) {
      if (!(error instanceof UnsupportedRegexError)) throw error;
      log.warn(`ignore rule ${JSON.stringify(line)} cannot be matched in linear time and is skipped: ${error.message}`);
      return undefined;
    }
  }
  if (matchers.length === 0) return undefined;
  return { negated, directoriesOnly, matches: (path) => matchers.some((matches) => matches(path)) };
}

/** Drops trailing spaces that are not escaped with a backslash (as git does: a trailing lone `\` keeps them). */
function trimTrailingSpaces(pattern: string): string {
  let lastSpace = -1;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === " ") {
      if (lastSpace < 0) lastSpace = i;
      continue;
    }
    if (char === "\\") {
      i++;
      if (i >= pattern.length) return pattern;
    }
    lastSpace = -1;
  }
  return lastSpace < 0 ? pattern : pattern.slice(0, lastSpace);
}
