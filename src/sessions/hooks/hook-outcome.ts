/**
 * What a finished hook said, read as Claude Code reads it: exit 0 is
 * success (its stdout, as JSON when it is a JSON object, else as text), exit 2
 * blocks (stderr is the reason), anything else — another code, a timeout, a
 * command that cannot start — is a failure the user is told about and that
 * changes nothing. The outcomes of one event's hooks, which ran in parallel,
 * are then merged: a deny beats an ask beats an allow, and a project's hook
 * can never allow (it may only make things stricter).
 * @module
 */
import type { BoundedCommandResult } from "../../runtime/process/bounded-command.ts";
import type { HookCommand, HookEvent } from "./hook-config.ts";

/** Everything one event's hooks said, merged. */
export interface HookVerdict {
  /** Exit 2, `decision: "block"`, a `deny`: what the event does with it depends on the event. */
  block?: string;
  /** PreToolUse: what the hooks said about the permission question. */
  permission?: { decision: "allow" | "ask"; reason?: string };
  /** `continue: false`: stop, with this reason for the user. */
  halt?: string;
  /** Text for the model (plain stdout of UserPromptSubmit and SessionStart, `additionalContext`). */
  context: string[];
  /** For the user: failures, `systemMessage`s. */
  notices: string[];
}

interface HookJson {
  continue?: unknown;
  stopReason?: unknown;
  suppressOutput?: unknown;
  systemMessage?: unknown;
  decision?: unknown;
  reason?: unknown;
  hookSpecificOutput?: { permissionDecision?: unknown; permissionDecisionReason?: unknown; additionalContext?: unknown };
}

/** Events whose plain stdout on exit 0 joins the model's context. */
const CONTEXT_EVENTS = new Set<HookEvent>(["UserPromptSubmit", "SessionStart"]);

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

/** One hook's outcome as a verdict of its own. */
export function readOutcome(hook: HookCommand, run: BoundedCommandResult): HookVerdict {
  const verdict: HookVerdict = { context: [], notices: [] };
  const name = `${hook.event} hook \`${hook.command.slice(0, 80)}\``;
  if (run.startFailure !== undefined) return { ...verdict, notices: [`${name} could not start: ${run.startFailure}.`] };
  if (run.cancelled) return verdict;
  if (run.timedOut) return { ...verdict, notices: [`${name} was stopped after ${hook.timeoutSeconds} s (its timeout).`] };
  if (run.code === 2) {
    verdict.block = text(run.stderr) ?? `Blocked by the ${hook.event} hook.`;
    return verdict;
  }
  if (run.code !== 0) {
    const detail = text(run.stderr);
    return { ...verdict, notices: [`${name} failed (exit ${run.code ?? "by a signal"})${detail ? `: ${detail.slice(0, 2000)}` : ""}.`] };
  }
  const json = parseJson(run.stdout);
  if (!json) {
    const plain = text(run.stdout);
    if (plain && CONTEXT_EVENTS.has(hook.event)) verdict.context.push(plain);
    return verdict;
  }
  if (json.continue === false) verdict.halt = text(json.stopReason) ?? `Stopped by the ${hook.event} hook.`;
  const message = text(json.systemMessage);
  if (message && json.suppressOutput !== true) verdict.notices.push(message);
  const specific = json.hookSpecificOutput ?? {};
  const context = text(specific.additionalContext);
  if (context) verdict.context.push(context);
  const reason = text(specific.permissionDecisionReason) ?? text(json.reason);
  const decision = specific.permissionDecision ?? legacyDecision(json.decision);
  if (decision === "deny" || json.decision === "block") verdict.block = reason ?? `Blocked by the ${hook.event} hook.`;
  else if (decision === "ask" || decision === "allow") verdict.permission = { decision, ...(reason ? { reason } : {}) };
  return verdict;
}

/** Claude Code's older PreToolUse words: `approve` is allow (`block` is handled as a block everywhere). */
function legacyDecision(decision: unknown): string | undefined {
  return decision === "approve" ? "allow" : undefined;
}

/** The stdout as a JSON object, when it is one; anything else is plain text. */
function parseJson(stdout: string): HookJson | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as HookJson) : undefined;
  } catch {
    return undefined;
  }
}

/** Merges the verdicts of one event's hooks; a project hook's `allow` counts for nothing. */
export function mergeVerdicts(parts: ReadonlyArray<{ hook: HookCommand; verdict: HookVerdict }>): HookVerdict {
  const merged: HookVerdict = { context: [], notices: [] };
  const blocks: string[] = [];
  const halts: string[] = [];
  for (const { hook, verdict } of parts) {
    if (verdict.block !== undefined) blocks.push(verdict.block);
    if (verdict.halt !== undefined) halts.push(verdict.halt);
    merged.context.push(...verdict.context);
    merged.notices.push(...verdict.notices);
    const permission = verdict.permission;
    if (!permission || (permission.decision === "allow" && hook.origin !== "user")) continue;
    if (!merged.permission || permission.decision === "ask") merged.permission = merged.permission?.decision === "ask" ? merged.permission : permission;
  }
  if (blocks.length > 0) merged.block = blocks.join("\n");
  if (halts.length > 0) merged.halt = halts.join("\n");
  return merged;
}
