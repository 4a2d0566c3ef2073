/**
 * The engine's `ToolAuthorizer` for one turn: evaluate the policy, ask the
 * editor when it says so, and remember "always" answers on the session.
 * @module
 */
import type { AuthorizationRequest, Authorization, ToolAuthorizer } from "../../engine/tool-call.ts";
import type { AgentContext, PermissionOption, ToolCallUpdate } from "../sdk.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import { answerTimeoutMs } from "../client/bounded-client-request.ts";
import { askClient } from "./ask-client.ts";
import { PARENT_META_KEY } from "../updates/projection.ts";
import { evaluatePolicy } from "../../permissions/policy.ts";
import type { Grant } from "../../permissions/grants.ts";
import { askRulesFor, createWalkFilter } from "../../permissions/walk-filter.ts";

const ALLOW_ONCE = "allow_once";
const ALLOW_ALWAYS = "allow_always";
const REJECT_ONCE = "reject_once";
const REJECT_ALWAYS = "reject_always";

export interface AuthorizerOptions {
  live: LiveSession;
  /** The connection whose prompt owns the turn: only it is asked. */
  client: AgentContext;
}

/** The authorizer of one turn of `live`, asking `client`; an "always" answer becomes the session's grant (remembered and recorded). */
export function createAuthorizer({ live, client }: AuthorizerOptions): ToolAuthorizer {
  return async (request: AuthorizationRequest): Promise<Authorization> => {
    const rules = live.settings.permissionRules ?? [];
    const cwd = live.agent.workspace.cwd;
    // Whatever lets the call run, the rules still decide each path a walk below its argument reaches;
    // when the user approved the call, the ask rules that asked about its argument are answered.
    const allowed = async (outside: boolean, approvedByUser = false): Promise<Authorization> => {
      const answered = approvedByUser ? await askRulesFor(rules, request.tool.name, request.access.paths ?? [], cwd) : undefined;
      const pathFilter = createWalkFilter(rules, request.tool.name, cwd, answered);
      return { allowed: true, outsideRootsApproved: outside, ...(pathFilter ? { pathFilter } : {}), ...(sandbox ? { sandbox } : {}) };
    };
    // Only commands need to know whether the machine has a sandbox.
    const availability = request.access.class === "execute" ? await live.sandbox.availability() : undefined;
    const verdict = await evaluatePolicy({
      toolName: request.tool.name,
      access: request.access,
      mode: live.mode,
      rules,
      grants: live.grants,
      cwd,
      roots: live.agent.workspace.roots,
      ...(availability ? { sandbox: { mode: live.sandbox.mode, available: availability.available, ...(availability.available ? {} : { missing: availability.missing }) } } : {}),
    });
    if (verdict.decision === "deny") return { allowed: false, reason: verdict.reason };
    // A hook may make the gate ask where it would not, or (a hook of the user's own) skip a question; never a refusal,
    // and never the question about leaving the sandbox or the session's folders: a hook that approves `npm test` did
    // not approve it running unconfined, or on files the user never opened to the agent.
    const hook = request.stepDecision;
    const hookMaySkip = !request.access.outsideSandbox && !verdict.outside;
    const decision = hook?.decision === "ask" ? "ask" : hook?.decision === "allow" && hookMaySkip ? "allow" : verdict.decision;
    // The confinement is worked out now, for the session's folders as they are.
    let sandbox: Awaited<ReturnType<typeof live.sandbox.spec>>;
    try {
      sandbox = verdict.sandbox ? await live.sandbox.spec(verdict.sandbox.readOnly) : undefined;
    } catch (error) {
      return { allowed: false, reason: `The sandbox's network for the allowed hosts could not start (${error instanceof Error ? error.message : String(error)}); nothing was run.` };
    }
    if (verdict.sandbox && !sandbox) return { allowed: false, reason: "The sandbox this command must run in is not available; nothing was run." };
    if (decision === "allow") return await allowed(verdict.outside);

    // A question only a hook asked offers no "always": a grant would skip the question the hook wants asked.
    const offer = verdict.decision === "ask" ? verdict.offer : undefined;
    const options: PermissionOption[] = [
      { optionId: ALLOW_ONCE, name: "Allow once", kind: "allow_once" },
      ...(offer?.allow ? [{ optionId: ALLOW_ALWAYS, name: offer.allow.label, kind: "allow_always" as const }] : []),
      { optionId: REJECT_ONCE, name: "Reject", kind: "reject_once" },
      ...(offer ? [{ optionId: REJECT_ALWAYS, name: offer.reject.label, kind: "reject_always" as const }] : []),
    ];
    live.hooks?.notify(`acp-edge needs your permission to use ${request.description.title}`, request.signal);
    const answer = await askClient({
      client,
      sessionId: live.id,
      toolCall: permissionToolCall(request),
      options,
      signal: request.signal,
      timeoutMs: answerTimeoutMs(live),
    });
    switch (answer.outcome) {
      case "cancelled":
        return { allowed: false, reason: "The permission request was cancelled; the tool was not run." };
      case "failed":
        return {
          allowed: false,
          reason: `Not run: ${answer.reason}. Ask the user to approve it again, or to change the session's mode.`,
        };
      case "selected":
        break;
    }
    const remember = async (grant: Grant | undefined) => {
      if (grant) await live.grant(grant);
    };
    switch (answer.optionId) {
      case ALLOW_ALWAYS:
        await remember(offer?.allow);
        return await allowed(verdict.outside, true);
      case ALLOW_ONCE:
        return await allowed(verdict.outside, true);
      case REJECT_ALWAYS:
        await remember(offer?.reject);
        return { allowed: false, reason: `The user rejected this (${offer?.reject.label}). Do not retry it; ask the user how to proceed.` };
      default:
        return { allowed: false, reason: "The user rejected this tool call. Do not retry it; ask the user how to proceed." };
    }
  };
}

/**
 * What the editor shows while asking: title, kind, locations and one content list of everything that
 * applies — the edit's diff, the warning that a command leaves the sandbox (with the model's reason),
 * then a hook's reason. Nothing a hook says can take the place of the diff or the warning.
 */
function permissionToolCall(request: AuthorizationRequest): ToolCallUpdate {
  const locations = request.preview?.locations ?? request.description.locations;
  const diff = request.preview?.diff;
  const escalation = request.access.outsideSandbox;
  const hookReason = request.stepDecision?.decision === "ask" ? request.stepDecision.reason : undefined;
  const text = (value: string) => ({ type: "content" as const, content: { type: "text" as const, text: value } });
  const content: NonNullable<ToolCallUpdate["content"]> = [
    ...(diff ? [{ type: "diff" as const, path: diff.path, oldText: diff.oldText, newText: diff.newText }] : []),
    ...(escalation ? [text(`Run outside the sandbox (no confinement of files or network). Reason given: ${escalation.reason}`)] : []),
    ...(hookReason ? [text(`A hook asks for your approval: ${hookReason}`)] : []),
  ];
  return {
    toolCallId: request.toolCallId,
    title: request.description.title,
    kind: request.tool.kind,
    status: "pending",
    locations: locations.map((l) => (l.line === undefined ? { path: l.path } : { path: l.path, line: l.line })),
    rawInput: request.input,
    ...(content.length > 0 ? { content } : {}),
    ...(request.parentToolCallId === undefined ? {} : { _meta: { [PARENT_META_KEY]: request.parentToolCallId } }),
  };
}
