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
 * `.`/`..` segment. Paths from a directory walk have neither, so dropping them
 * changes no answer; every other lookaround is refused by the engine.
 */
const WALK_REDUNDANT_ASSERTIONS = ["(?!(?:^|\\/)\\.{1,2}(?:\\/|$))", "(?!\\.{1,2}(?:\\/|$))", "(?=.)"];

/** A predicate for one glob over walk-relative POSIX paths. Throws UnsupportedRegexError for globs it cannot run. */
export function globMatcher(glob: string): (path: string) => boolean {
  // A leading `!` negates the glob (but `!(…)` is an extglob).
  if (glob.startsWith("!") && !glob.startsWith("!(")) {
    const inner = globMatcher(glob.slice(1));
    return (path) => !inner(path);
  }
  let regex: RegExp;
  try {
    regex = searchEngines().picomatch.makeRe(glob, { dot: true });
  } catch (error) {
    throw new UnsupportedRegexError(`invalid glob: ${(error as Error).message}`);
  }
  let source = regex.source;
  for (const assertion of WALK_REDUNDANT_ASSERTIONS) source = source.split(assertion).join("");
  try {
    const compiled = compileLinearRegex(source, { ignoreCase: regex.flags.includes("i") });
    return (path) => compiled.test(path);
  } catch (error) {
    if (!(error instanceof UnsupportedRegexError)) throw error;
    const negated = /!\(/.test(glob) ? "negated extglobs !(…)" : "this glob";
    throw new UnsupportedRegexError(`${negated} cannot be matched in linear time; use a simpler glob (${error.message})`);
  }
}
