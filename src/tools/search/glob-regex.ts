/**
 * Globs (as picomatch reads them) run on the linear-time regex engine.
 * picomatch turns a glob into a backtracking JavaScript regex, and a glob
 * such as `*a*a*a*a*a*a*a*a*b` then takes exponential time on a long name;
 * the same regex on RE2 cannot.
 * @module
 */
import { searchEngines } from "./search-engines.ts";
import { compileLinearRegex, UnsupportedRegexError } from "./linear-regex.ts";

/**
 * The assertions picomatch adds so that `*` never matches an empty name or a
 * `.`/`..` segment (also after a literal `.`). Paths from a directory walk
 * have neither, so dropping them changes no answer; every other lookaround is
 * refused by the engine.
 */
const WALK_REDUNDANT_ASSERTIONS = ["(?!(?:^|\\/)\\.{1,2}(?:\\/|$))", "(?!\\.{1,2}(?:\\/|$))", "(?!\\.{0,1}(?:\\/|$))", "(?=.)"];

/** picomatch escapes non-ASCII characters on some paths (`\é`); RE2 refuses such escapes, and they mean the character. */
function unescapeNonAscii(source: string): string {
  return source.replace(/\\(.)/gsu, (escape, char: string) => (char.charCodeAt(0) > 0x7f ? char : escape));
}

/**
 * A predicate for one glob over walk-relative POSIX paths, case-insensitive
 * with `ignoreCase`. Throws UnsupportedRegexError for globs it cannot run.
 */
export function globMatcher(glob: string, options: { ignoreCase?: boolean } = {}): (path: string) => boolean {
  // A leading `!` negates the glob (but `!(…)` is an extglob).
  if (glob.startsWith("!") && !glob.startsWith("!(")) {
    const inner = globMatcher(glob.slice(1), options);
    return (path) => !inner(path);
  }
  // picomatch's parser never returns on some runs of four or more backslashes (one at the end of a glob).
  if (/\\{4}/.test(glob)) throw new UnsupportedRegexError("four or more backslashes in a row are not supported in a glob");
  let regex: RegExp;
  try {
    regex = searchEngines().picomatch.makeRe(glob, { dot: true, nocase: options.ignoreCase === true });
  } catch (error) {
    throw new UnsupportedRegexError(`invalid glob: ${(error as Error).message}`);
  }
  let source = regex.source;
  for (const assertion of WALK_REDUNDANT_ASSERTIONS) source = source.split(assertion).join("");
  source = unescapeNonAscii(source);
  try {
    const compiled = compileLinearRegex(source, { ignoreCase: regex.flags.includes("i") });
    return (path) => compiled.test(path);
  } catch (error) {
    if (!(error instanceof UnsupportedRegexError)) throw error;
    const negated = /!\(/.test(glob) ? "negated extglobs !(…)" : "this glob";
    throw new UnsupportedRegexError(`${negated} cannot be matched in linear time; use a simpler glob (${error.message})`);
  }
}
