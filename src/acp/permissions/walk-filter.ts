/**
 * Path rules for the files a tool reaches by itself. The policy decides a
 * call on its argument (`grep` in `.`); the walk below that argument meets
 * paths the argument never named (`./secrets/key.txt`). Each of them is
 * matched against the same path rules, and any that a `deny` or an `ask`
 * rule covers for this tool is left out: not read, not listed, not entered.
 * Asking once per file in a walk would be unusable, so `ask` withholds too;
 * naming the path as the tool's argument asks as usual.
 * @module
 */
import type { PermissionRule } from "../../config/settings-schema.ts";
import type { PathFilter } from "../../tools/types.ts";
import { matchPathRules, pathRuleCovers } from "./rules.ts";

/**
 * The filter for a call of `tool`, or undefined when no `deny` or `ask`
 * path rule applies to that tool (nothing can be withheld). Each spelling
 * of an entry (as reached, and symlink-free) is judged on its own and the
 * entry is kept only when neither is withheld, so a link cannot lead a walk
 * around a rule.
 */
export function createWalkFilter(rules: readonly PermissionRule[], tool: string, cwd: string): PathFilter | undefined {
  const relevant = rules.filter((rule) => pathRuleCovers(rule, tool));
  if (!relevant.some((rule) => rule.action !== "allow")) return undefined;
  const withheld = (spelling: string) => {
    const match = matchPathRules(relevant, tool, [spelling], cwd);
    return match !== undefined && match.rule.action !== "allow";
  };
  return (path, realPath) => !withheld(path) && (realPath === path || !withheld(realPath));
}
