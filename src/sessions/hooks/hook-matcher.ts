/**
 * Hook matchers as Claude Code reads them: empty or `*` matches everything;
 * letters, digits, `_` and `|` only is a list of exact names (`Edit|Write`);
 * anything else is a regular expression tested against the name. A matcher
 * comes from a file someone else may have written, so regexes run on the
 * linear-time engine: `(a+)+$` costs no more than any other pattern.
 * @module
 */
import { compileLinearRegex } from "../../tools/search/linear-regex.ts";

/** Whether a hook applies to a call known by these names (a tool can answer to two, e.g. `Edit` and `MultiEdit`). */
export type ToolMatcher = (names: readonly string[]) => boolean;

const EXACT_NAMES = /^[A-Za-z0-9_|]+$/;

export function compileMatcher(matcher: string): { ok: true; matcher: ToolMatcher } | { ok: false; why: string } {
  if (matcher === "" || matcher === "*") return { ok: true, matcher: () => true };
  if (EXACT_NAMES.test(matcher)) {
    const names = new Set(matcher.split("|").filter((name) => name !== ""));
    return { ok: true, matcher: (candidates) => candidates.some((name) => names.has(name)) };
  }
  try {
    const regex = compileLinearRegex(matcher);
    return { ok: true, matcher: (candidates) => candidates.some((name) => regex.test(name)) };
  } catch (error) {
    return { ok: false, why: error instanceof Error ? error.message : String(error) };
  }
}
