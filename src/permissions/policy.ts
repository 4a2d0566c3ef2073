/**
 * Deciding whether a tool call runs, is refused, or needs the user. The
 * order, strictest first:
 *   1. a `deny` rule, then an "always reject" answer: refused;
 *   2. `read-only` mode: every edit, command and other tool refused,
 *      whatever rules or answers allow (reads go on below);
 *   3. an `ask` rule: ask, in every mode;
 *   4. a command line the lexer cannot account for: rules and answers
 *      cannot allow it; in `yolo` it still asks when command `deny`/`ask`
 *      rules or "always reject" answers exist (they cannot be checked on
 *      what the line builds);
 *   5. an `allow` rule covering every target, then an "always allow"
 *      answer: run;
 *   6. the approval mode.
 * Commands are also confined by the sandbox (command-confinement.ts): a
 * confined command in `auto` or `read-only` mode runs without asking once
 * no rule or answer refuses or asks; one that asks to run outside the
 * sandbox always asks (but in `yolo`), and no rule or answer allows it.
 * A `fetch` is decided by its host instead (fetch-policy.ts).
 * A refusal never reaches the editor.
 * @module
 */
import type { ApprovalMode } from "../config/settings-schema.ts";
import { containingRoot, dirname } from "../runtime/files/path.ts";
import { realLocation } from "../tools/paths.ts";
import type { ToolAccess } from "../tools/types.ts";
import { splitShellCommand, type CommandLine } from "./command-line.ts";
import { commandConfinement } from "./command-confinement.ts";
import { fetchVerdict } from "./fetch-policy.ts";
import type { PolicyInput, PolicyVerdict } from "./policy-types.ts";
import { matchGrant, offerGrants, type Grant, type GrantTarget } from "./grants.ts";
import { describeRule, hasCommandRefusals, matchCommandRules, matchPathRules, matchToolRules, strongerAction, type RuleAction, type RuleMatch } from "./rules.ts";

export type { PolicyInput, PolicyVerdict };

const MODE_HINT = "Change the session's mode (read-only, ask, write, auto, yolo) to allow it.";

/** The verdict for one tool call; see the module comment for the order. */
export async function evaluatePolicy(input: PolicyInput): Promise<PolicyVerdict> {
  if (input.access.class !== "execute") return await baseVerdict(input);
  const confinement = commandConfinement(input.mode, input.sandbox, input.access.outsideSandbox !== undefined);
  switch (confinement.kind) {
    case "none":
      return await baseVerdict(input);
    case "refuse":
      return { decision: "deny", reason: confinement.reason };
    case "escalated":
      return await escalationVerdict(input);
    case "sandbox": {
      const sandbox = { readOnly: confinement.readOnly };
      const verdict = await baseVerdict(input, confinement.approved);
      // Approved by the sandbox: only a rule or answer that refuses or asks still counts.
      if (verdict.decision === "deny") return verdict;
      if (verdict.decision === "allow" || (confinement.approved && !verdict.ruled)) return { decision: "allow", outside: verdict.outside, sandbox };
      const { ruled: _ruled, ...ask } = verdict;
      return { ...ask, sandbox };
    }
  }
}

/**
 * A command that asks to leave the sandbox: refusing rules and answers still refuse; otherwise the
 * user is asked, whatever rules or earlier answers allow, with no "always" to offer; `read-only`
 * refuses it.
 */
async function escalationVerdict(input: PolicyInput): Promise<PolicyVerdict> {
  const verdict = await baseVerdict(input, true);
  if (verdict.decision === "deny") return verdict;
  const reason = input.access.outsideSandbox?.reason ?? "";
  if (input.mode === "read-only") {
    return { decision: "deny", reason: `Commands outside the sandbox are refused in read-only mode: ${input.toolName} \`${input.access.command?.trim()}\` was not run. ${MODE_HINT}` };
  }
  const offer = offerGrants({ class: "execute", tool: input.toolName, paths: [], command: splitShellCommand(input.access.command ?? ""), roots: input.roots }, undefined);
  return { decision: "ask", outside: verdict.outside, why: `it asks to run outside the sandbox: ${reason}`, offer: { reject: offer.reject } };
}

/** A verdict, with `ruled` on an ask that a rule (not the mode) decided. */
type RuledVerdict = Exclude<PolicyVerdict, { decision: "ask" }> | (Extract<PolicyVerdict, { decision: "ask" }> & { ruled?: boolean });

/** The verdict without the sandbox; `sandboxed`: a command the sandbox lets run unasked (read-only mode does not refuse it). */
async function baseVerdict(input: PolicyInput, sandboxed = false): Promise<RuledVerdict> {
  const { access } = input;
  if (access.class === "none") return { decision: "allow", outside: false };
  if (access.class === "fetch") return fetchVerdict(input);

  const paths = await Promise.all((access.paths ?? []).map(async (p) => ({ lexical: p, real: await realLocation(p, p).catch(() => p) })));
  const outsidePaths = paths.filter((p) => containingRoot(p.real, input.roots) === undefined);
  const outside = outsidePaths.length > 0;
  const command: CommandLine | undefined = access.class === "execute" ? splitShellCommand(access.command ?? "") : undefined;
  const target: GrantTarget = { class: access.class, tool: input.toolName, paths: paths.map((p) => p.real), ...(command ? { command } : {}), roots: input.roots };
  const offer = offerGrants(target, outside ? dirname(outsidePaths[0]!.real) : undefined);
  const what = command ? `\`${access.command?.trim()}\`` : paths.length > 0 ? paths.map((p) => p.lexical).join(", ") : "";
  const unaccounted = command !== undefined && command.unaccounted.length > 0;

  const ruling = ruleVerdict(input, paths, command);
  if (ruling.action === "deny") {
    return { decision: "deny", reason: `Blocked by the permission rule "${describeRule(ruling.decisive!.rule)}" in settings: ${input.toolName} ${what} is not allowed.` };
  }
  const grant = matchGrant(input.grants, target);
  if (grant?.effect === "deny") return { decision: "deny", reason: `Rejected for this session ("${grant.label}"): ${input.toolName} ${what} was not run.` };
  if (input.mode === "read-only" && access.class !== "read" && !sandboxed) return readOnlyRefusal(access.class, input.toolName, what);
  if (ruling.action === "ask") {
    return { decision: "ask", outside, why: `the permission rule "${describeRule(ruling.decisive!.rule)}" asks first`, offer, ruled: true };
  }
  if (unaccounted) {
    const refusals = hasCommandRefusals(input.rules, input.toolName) || input.grants.some((g) => g.effect === "deny" && g.class === "execute");
    // Without asking (yolo, or a command the sandbox approves), refusing rules must be checkable on what runs.
    if ((input.mode === "yolo" || sandboxed) && refusals) {
      return { decision: "ask", outside, why: "acp-edge cannot tell every command this line would run, so the command rules cannot be checked", offer, ruled: true };
    }
  } else {
    if (ruling.action === "allow" && ruling.everyTarget) return { decision: "allow", outside };
    if (grant?.effect === "allow") return { decision: "allow", outside };
  }
  return modeVerdict(input.mode, access.class, outside, offer);
}


interface Ruling {
  action?: RuleAction;
  decisive?: RuleMatch;
  /** Every target (path or simple command) has a rule of its own or the tool's. */
  everyTarget: boolean;
}

/**
 * Rules from settings, longest match per target; the strongest verdict
 * across targets. A rule naming only the tool applies to targets no path or
 * command rule decides. In an unaccounted line, the commands that might run
 * are targets too (they can only make it stricter).
 */
function ruleVerdict(input: PolicyInput, paths: Array<{ lexical: string; real: string }>, command: CommandLine | undefined): Ruling {
  const toolRule = matchToolRules(input.rules, input.toolName);
  const commands = command ? [...command.commands, ...command.possible] : [];
  const targetMatches: Array<RuleMatch | undefined> = command
    ? commands.map((c) => matchCommandRules(input.rules, input.toolName, c))
    : paths.map((p) => matchPathRules(input.rules, input.toolName, [p.lexical, p.real], input.cwd));
  const matches = targetMatches.length > 0 ? targetMatches.map((m) => m ?? toolRule) : [toolRule];
  let action: RuleAction | undefined;
  let decisive: RuleMatch | undefined;
  for (const match of matches) {
    if (!match) continue;
    const next = action ? strongerAction(action, match.rule.action) : match.rule.action;
    if (next !== action) decisive = match;
    action = next;
  }
  return { action, decisive, everyTarget: matches.every((m) => m !== undefined) };
}

function readOnlyRefusal(kind: "edit" | "execute" | "other", tool: string, what: string): PolicyVerdict {
  const noun = kind === "edit" ? "File changes" : kind === "execute" ? "Commands" : "Tools that may change things";
  return { decision: "deny", reason: `${noun} are refused in read-only mode: ${tool} ${what} was not run. ${MODE_HINT}` };
}

function modeVerdict(mode: ApprovalMode, kind: "read" | "edit" | "execute" | "other", outside: boolean, offer: { allow?: Grant; reject: Grant }): PolicyVerdict {
  if (mode === "yolo") return { decision: "allow", outside };
  if (kind === "read") {
    return outside ? { decision: "ask", outside, why: "it reads outside the session's directories", offer } : { decision: "allow", outside };
  }
  // `auto` treats files as `write` does; its commands are decided by the sandbox (see evaluatePolicy).
  if (kind === "edit" && (mode === "write" || mode === "auto") && !outside) return { decision: "allow", outside };
  const why =
    kind === "edit" ? (outside ? "it changes files outside the session's directories" : "it changes files") : kind === "execute" ? "it runs a command" : "it may change things";
  return { decision: "ask", outside, why, offer };
}
