/**
 * Permission rules from settings: `allow`, `ask` or `deny` by path prefix
 * (optionally only for some tools) or by command (for `bash`). The longest
 * matching rule wins; on a tie `deny` beats `ask` beats `allow`.
 * @module
 */
import type { PermissionRule } from "../config/settings-schema.ts";
import { expandTilde } from "../config/home.ts";
import { isWithin, resolve } from "../runtime/files/path.ts";
import type { SimpleCommand } from "./command-line.ts";
import { allowCovers, readCommandPattern, refusalCovers } from "./command-match.ts";
import { hostCovers, hostText, readHostPattern } from "../runtime/fetch/host-key.ts";

export type RuleAction = PermissionRule["action"];

export interface RuleMatch {
  rule: PermissionRule;
  /** How specific the match is (length of the matched prefix). */
  length: number;
}

const strength: Record<RuleAction, number> = { allow: 0, ask: 1, deny: 2 };

/** The stronger of two actions (`deny` > `ask` > `allow`). */
export function strongerAction(a: RuleAction, b: RuleAction): RuleAction {
  return strength[a] >= strength[b] ? a : b;
}

/** `mcp__github__*` matches every tool of that server; other names match exactly. */
export function toolNameMatches(pattern: string, tool: string): boolean {
  return pattern.endsWith("*") ? tool.startsWith(pattern.slice(0, -1)) : pattern === tool;
}

/**
 * Tools a rule naming `read` covers as well: each shows what files hold
 * (grep) or what files exist (find, ls), so a rule keeping `read` away from
 * a path keeps them away too.
 */
const READ_FAMILY: ReadonlySet<string> = new Set(["grep", "find", "ls"]);

/** Whether a rule's `tools` pattern names `tool` (a `read` pattern also names grep, find and ls). */
function patternCovers(pattern: string, tool: string): boolean {
  return toolNameMatches(pattern, tool) || (pattern === "read" && READ_FAMILY.has(tool));
}

function appliesToTool(rule: PermissionRule, tool: string, defaultTools?: readonly string[]): boolean {
  const tools = rule.tools ?? defaultTools;
  return tools === undefined || tools.some((pattern) => patternCovers(pattern, tool));
}

/** Whether a path rule applies to `tool` (no `tools`: every tool). */
export function pathRuleCovers(rule: PermissionRule, tool: string): boolean {
  return rule.path !== undefined && appliesToTool(rule, tool);
}

/** Length of the part of `target` the rule path covers, or undefined when it does not cover it. */
export function pathRuleLength(rulePath: string, target: string, cwd: string): number | undefined {
  const wildcard = rulePath.endsWith("*");
  const base = resolve(cwd, expandTilde(wildcard ? rulePath.slice(0, -1) : rulePath));
  if (wildcard) {
    const raw = rulePath.slice(0, -1).endsWith("/") ? `${base}/` : base;
    return target.startsWith(raw) ? raw.length : undefined;
  }
  return isWithin(target, base) ? base.length : undefined;
}

/** Picks the winner among matches: longest first, then the stronger action. */
function best(matches: RuleMatch[]): RuleMatch | undefined {
  let winner: RuleMatch | undefined;
  for (const match of matches) {
    if (
      !winner ||
      match.length > winner.length ||
      (match.length === winner.length && strength[match.rule.action] > strength[winner.rule.action])
    ) {
      winner = match;
    }
  }
  return winner;
}

/** The rule deciding a file tool's access to one path (checked against each of its spellings). */
export function matchPathRules(rules: readonly PermissionRule[], tool: string, spellings: readonly string[], cwd: string): RuleMatch | undefined {
  const matches: RuleMatch[] = [];
  for (const rule of rules) {
    if (!rule.path || !appliesToTool(rule, tool)) continue;
    for (const target of spellings) {
      const length = pathRuleLength(rule.path, target, cwd);
      if (length !== undefined) matches.push({ rule, length });
    }
  }
  return best(matches);
}

/**
 * The rule deciding one simple command of a command line. An `allow` rule
 * matches its exact words; `ask` and `deny` also match other spellings
 * (see command-match.ts).
 */
export function matchCommandRules(rules: readonly PermissionRule[], tool: string, command: SimpleCommand): RuleMatch | undefined {
  const matches: RuleMatch[] = [];
  for (const rule of rules) {
    if (!rule.command || !appliesToTool(rule, tool, ["bash"])) continue;
    const pattern = readCommandPattern(rule.command);
    if (!pattern) continue;
    // A wrapper's words are only a guess at what runs: they can be refused, never allowed.
    if (rule.action === "allow" && command.anyStart) continue;
    const hit = rule.action === "allow" ? allowCovers(command, pattern) : refusalCovers(command, pattern);
    if (hit) matches.push({ rule, length: rule.command.trim().length });
  }
  return best(matches);
}

/** Whether any `ask` or `deny` command rule applies to this tool (then lines that cannot be accounted for always ask). */
export function hasCommandRefusals(rules: readonly PermissionRule[], tool: string): boolean {
  return rules.some((rule) => rule.command && rule.action !== "allow" && appliesToTool(rule, tool, ["bash"]));
}

/**
 * The rule naming the tool itself (no path, no command): the least specific
 * kind, used when no path or command rule decides. Longer patterns win.
 */
export function matchToolRules(rules: readonly PermissionRule[], tool: string): RuleMatch | undefined {
  const matches: RuleMatch[] = [];
  for (const rule of rules) {
    if (rule.path || rule.command || rule.host || !rule.tools) continue;
    const hit = rule.tools.filter((pattern) => patternCovers(pattern, tool)).sort((a, b) => b.length - a.length)[0];
    if (hit) matches.push({ rule, length: hit.length });
  }
  return best(matches);
}

/**
 * The rule deciding a `fetch` of `host` (`name` or `name:port`): rules with a
 * `host`, longest pattern first. Both sides are read into one normalised
 * spelling (case, trailing dot, IDNA, ports: see host-key.ts), so no other
 * spelling of a host slips past a rule. A host or pattern that cannot be
 * read meets every `ask` and `deny` rule and no `allow` rule: it fails closed.
 * `ask` and `deny` rules also meet the IPv6 forms built around their IPv4 address (NAT64, 6to4, …).
 */
export function matchHostRules(rules: readonly PermissionRule[], tool: string, host: string): RuleMatch | undefined {
  const target = readHostPattern(host);
  const matches: RuleMatch[] = [];
  for (const rule of rules) {
    if (!rule.host || !appliesToTool(rule, tool, ["fetch"])) continue;
    const pattern = readHostPattern(rule.host, { wildcard: true });
    const hit = pattern && target ? hostCovers(pattern, target, rule.action !== "allow") : rule.action !== "allow";
    // Measured as normalised, so a longer spelling of the same host (punycode, a trailing dot) does not outrank a deny.
    // A refusal met through the IPv4 address it carries counts as long as the host itself: no allowance outranks it.
    const viaCarried = pattern && target && !hostCovers(pattern, target);
    if (hit) matches.push({ rule, length: viaCarried ? hostText(target).length : pattern ? hostText(pattern).length : rule.host.length });
  }
  return best(matches);
}

/** A rule as people read it in messages: `deny path "secrets/" (read)`. */
export function describeRule(rule: PermissionRule): string {
  if (!rule.path && !rule.command && !rule.host) return `${rule.action} tools ${(rule.tools ?? []).join(", ")}`;
  const what = rule.command ? `command "${rule.command}"` : rule.host ? `host "${rule.host}"` : `path "${rule.path}"`;
  const tools = rule.tools ? ` (${rule.tools.join(", ")})` : "";
  return `${rule.action} ${what}${tools}`;
}
