/**
 * Path rules for the files a tool reaches by itself. The policy decides a
 * call on its argument (`grep` in `.`); the walk below that argument meets
 * paths the argument never named (`./secrets/key.txt`). Each of them is
 * matched against the same path rules, and any that a `deny` or an `ask`
 * rule covers for this tool is left out: not read, not listed, not entered.
 * Asking once per file in a walk would be unusable, so `ask` withholds too;
 * naming the path as the tool's argument asks as usual, and once the user
 * has approved that, the rule that asked no longer withholds below it.
 * @module
 */
import { expandTilde } from "../config/home.ts";
import type { PermissionRule } from "../config/settings-schema.ts";
import { resolve } from "../runtime/files/path.ts";
import { realLocation } from "../tools/paths.ts";
import type { PathFilter } from "../tools/types.ts";
import { matchPathRules, pathRuleCovers } from "./rules.ts";

/**
 * The filter for a call of `tool`, or undefined when no `deny` or `ask`
 * path rule applies to that tool (nothing can be withheld). Each spelling
 * of an entry (as reached, and symlink-free) is judged on its own and the
 * entry is kept only when neither is withheld, so a link cannot lead a walk
 * around a rule. `answered` holds the `ask` rules the user approved for
 * this call; they let entries through.
 */
export function createWalkFilter(
  rules: readonly PermissionRule[],
  tool: string,
  cwd: string,
  answered: ReadonlySet<PermissionRule> = new Set(),
): PathFilter | undefined {
  const relevant = rules.filter((rule) => pathRuleCovers(rule, tool));
  if (!relevant.some((rule) => rule.action === "deny" || (rule.action === "ask" && !answered.has(rule)))) return undefined;
  // Every rule matches only below its base: most entries of a walk are under none, and need no matching.
  const bases = relevant.map((rule) => resolve(cwd, expandTilde((rule.path ?? "").replace(/\*$/, ""))));
  const withheld = (spelling: string) => {
    if (!bases.some((base) => spelling.startsWith(base))) return false;
    const rule = matchPathRules(relevant, tool, [spelling], cwd)?.rule;
    return rule !== undefined && (rule.action === "deny" || (rule.action === "ask" && !answered.has(rule)));
  };
  return (path, realPath) => !withheld(path) && (realPath === path || !withheld(realPath));
}

/** The `ask` rules that decide any of `paths` (as given or symlink-free) for `tool`: what approving the call answers. */
export async function askRulesFor(rules: readonly PermissionRule[], tool: string, paths: readonly string[], cwd: string): Promise<Set<PermissionRule>> {
  const asked = new Set<PermissionRule>();
  for (const path of paths) {
    const real = await realLocation(path, path).catch(() => path);
    for (const spelling of new Set([path, real])) {
      const rule = matchPathRules(rules, tool, [spelling], cwd)?.rule;
      if (rule?.action === "ask") asked.add(rule);
    }
  }
  return asked;
}
