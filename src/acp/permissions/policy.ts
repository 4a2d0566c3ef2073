/**
 * Deciding whether a tool call runs, is refused, or needs the user: first
 * the permission rules from settings, then the session's "always" answers,
 * then the approval mode. A refusal never reaches the editor.
 * @module
 */
import type { ApprovalMode, PermissionRule } from "../../config/settings-schema.ts";
import { dirname } from "../../runtime/path.ts";
import { containingRoot, realLocation } from "../../tools/paths.ts";
import type { ToolAccess } from "../../tools/types.ts";
import { parseCommandLine, type CommandLine } from "./command-line.ts";
import { matchGrant, offerGrants, type Grant, type GrantTarget } from "./grants.ts";
import { describeRule, matchCommandRules, matchPathRules, matchToolRules, strongerAction, type RuleAction, type RuleMatch } from "./rules.ts";

export interface PolicyInput {
  toolName: string;
  access: ToolAccess;
  mode: ApprovalMode;
  rules: readonly PermissionRule[];
  grants: readonly Grant[];
  cwd: string;
  roots: readonly string[];
}

export type PolicyVerdict =
  | { decision: "allow"; outside: boolean }
  | { decision: "deny"; reason: string }
  | { decision: "ask"; outside: boolean; why: string; offer: { allow?: Grant; reject: Grant } };

const MODE_HINT = "Change the session's mode (read-only, ask, write, yolo) to allow it.";

export async function evaluatePolicy(input: PolicyInput): Promise<PolicyVerdict> {
  const { access } = input;
  if (access.class === "none") return { decision: "allow", outside: false };

  const paths = await Promise.all((access.paths ?? []).map(async (p) => ({ lexical: p, real: await realLocation(p, p).catch(() => p) })));
  const outsidePaths = paths.filter((p) => containingRoot(p.real, input.roots) === undefined);
  const outside = outsidePaths.length > 0;
  const command: CommandLine | undefined = access.class === "execute" ? parseCommandLine(access.command ?? "") : undefined;
  const target: GrantTarget = { class: access.class, tool: input.toolName, paths: paths.map((p) => p.real), ...(command ? { command } : {}), roots: input.roots };
  const offer = offerGrants(target, outside ? dirname(outsidePaths[0]!.real) : undefined);
  const what = command ? `\`${access.command?.trim()}\`` : paths.length > 0 ? paths.map((p) => p.lexical).join(", ") : "";

  // 1. Rules from settings, longest match per target; the strongest verdict across targets.
  //    A rule naming only the tool applies to targets no path or command rule decides.
  const toolRule = matchToolRules(input.rules, input.toolName);
  const targetMatches: Array<RuleMatch | undefined> = command
    ? command.segments.map((segment) => matchCommandRules(input.rules, input.toolName, segment))
    : paths.map((p) => matchPathRules(input.rules, input.toolName, [p.lexical, p.real], input.cwd));
  const matches = targetMatches.length > 0 ? targetMatches.map((m) => m ?? toolRule) : [toolRule];
  let ruled: RuleAction | undefined;
  let decisive: RuleMatch | undefined;
  for (const match of matches) {
    if (!match) continue;
    const next = ruled ? strongerAction(ruled, match.rule.action) : match.rule.action;
    if (next !== ruled) decisive = match;
    ruled = next;
  }
  if (ruled === "deny") {
    return { decision: "deny", reason: `Blocked by the permission rule "${describeRule(decisive!.rule)}" in settings: ${input.toolName} ${what} is not allowed.` };
  }
  if (ruled === "ask") {
    return { decision: "ask", outside, why: `the permission rule "${describeRule(decisive!.rule)}" asks first`, offer };
  }
  const everyTargetRuled = matches.length > 0 && matches.every((m) => m !== undefined);
  const hiddenWork = command !== undefined && (command.substitution || command.redirection);
  if (ruled === "allow" && everyTargetRuled && !hiddenWork) return { decision: "allow", outside };

  // 2. The user's "always" answers for this session.
  const grant = matchGrant(input.grants, target);
  if (grant?.effect === "deny") return { decision: "deny", reason: `Rejected for this session ("${grant.label}"): ${input.toolName} ${what} was not run.` };
  if (grant?.effect === "allow") return { decision: "allow", outside };

  // 3. The approval mode.
  return modeVerdict(input.mode, access.class, outside, what, input.toolName, offer);
}

function modeVerdict(
  mode: ApprovalMode,
  kind: "read" | "edit" | "execute" | "other",
  outside: boolean,
  what: string,
  tool: string,
  offer: { allow?: Grant; reject: Grant },
): PolicyVerdict {
  if (mode === "yolo") return { decision: "allow", outside };
  if (kind === "read") {
    return outside ? { decision: "ask", outside, why: "it reads outside the session's directories", offer } : { decision: "allow", outside };
  }
  if (mode === "read-only") {
    const noun = kind === "edit" ? "File changes" : kind === "execute" ? "Commands" : "Tools that may change things";
    return { decision: "deny", reason: `${noun} are refused in read-only mode: ${tool} ${what} was not run. ${MODE_HINT}` };
  }
  if (kind === "edit" && mode === "write" && !outside) return { decision: "allow", outside };
  const why =
    kind === "edit" ? (outside ? "it changes files outside the session's directories" : "it changes files") : kind === "execute" ? "it runs a command" : "it may change things";
  return { decision: "ask", outside, why, offer };
}
