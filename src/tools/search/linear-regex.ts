/**
 * Regular expressions that come from users, models or files we did not
 * write, compiled for a linear-time engine (RE2 semantics, via re2js). No
 * pattern can make a match take exponential time the way a backtracking
 * engine can (`^(a+)+$`), so a search stays bounded by the size of its input.
 * Features RE2 cannot run in linear time (backreferences, lookaround) are
 * refused with a message that names them, never silently reinterpreted.
 * @module
 */
import type { RE2JS } from "re2js";
import { searchEngines } from "./search-engines.ts";

/** A compiled pattern; `test` looks for a match anywhere in the text. */
export interface LinearRegex {
  test(text: string): boolean;
  /** The engine's program size: a rough measure of the work per character of input. */
  readonly cost: number;
}

/** A pattern the engine will not run; `message` says why, in words a model can act on. */
export class UnsupportedRegexError extends Error {
  override name = "UnsupportedRegexError";
}

/** Bigger programs are refused: matching costs up to program size × input length. */
export const MAX_PROGRAM_SIZE = 5000;

/**
 * Compiles `pattern` (JavaScript regex syntax, minus what RE2 cannot do;
 * with `literal`, the text itself).
 * Throws UnsupportedRegexError for syntax errors, unsupported features and
 * patterns too large to match cheaply.
 */
export function compileLinearRegex(pattern: string, options: { ignoreCase?: boolean; literal?: boolean } = {}): LinearRegex {
  const unsupported = options.literal ? undefined : unsupportedFeature(pattern);
  if (unsupported) {
    throw new UnsupportedRegexError(`${unsupported} are not supported (patterns run on a linear-time engine with RE2 syntax)`);
  }
  let compiled: RE2JS;
  try {
    const { RE2JS: Engine } = searchEngines().re2js;
    const source = options.literal ? Engine.quote(pattern) : Engine.translateRegExp(pattern);
    compiled = Engine.compile(source, options.ignoreCase ? Engine.CASE_INSENSITIVE : 0);
  } catch (error) {
    if (error instanceof searchEngines().re2js.RE2JSException) throw new UnsupportedRegexError(error.message);
    throw error;
  }
  const cost = compiled.programSize();
  if (cost > MAX_PROGRAM_SIZE) {
    throw new UnsupportedRegexError(`pattern too complex (${cost} steps per character, at most ${MAX_PROGRAM_SIZE}); use a simpler pattern`);
  }
  return { test: (text) => compiled.test(text), cost };
}

/**
 * The first construct RE2 cannot run, described for the user, or undefined.
 * Checked before translation because the translator would pass some of them
 * through as something else (`\k<name>` would become the literal text `k<name>`).
 */
function unsupportedFeature(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      const next = pattern[i + 1] ?? "";
      if (!inClass && next >= "1" && next <= "9") return "backreferences (\\1 … \\9)";
      if (!inClass && next === "k" && pattern[i + 2] === "<") return "named backreferences (\\k<name>)";
      i++; // the escaped character is taken literally
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") {
      inClass = true;
      // A `]` right after `[` or `[^` is a member in RE2 (JavaScript reads `[]` as empty); skip it either way.
      if (pattern[i + 1] === "^") i++;
      if (pattern[i + 1] === "]") i++;
      continue;
    }
    if (char === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i + 2, i + 4);
      if (rest.startsWith("=") || rest.startsWith("!")) return "lookahead assertions ((?=…), (?!…))";
      if (rest === "<=" || rest === "<!") return "lookbehind assertions ((?<=…), (?<!…))";
    }
  }
  return undefined;
}
