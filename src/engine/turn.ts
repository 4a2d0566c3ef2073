/**
 * A prompt turn: call the model, run the tools it asks for, feed the results
 * back, and repeat until it stops, the request cap is reached, or the turn is
 * cancelled. The conversation (`history`) only ever grows by whole steps.
 * Messages steered into the turn join it right before a model call, after
 * the previous step's tool results; a reply that would end the turn while
 * one waits is followed by another call, so the model answers every one.
 * @module
 */
import type { ModelClient, ModelMessage, ThinkingLevel, ToolResultMessage, Usage, UserMessage } from "../models/types.ts";
import type { BackgroundCommandsView, SubagentHost, ToolDefinition, Workspace } from "../tools/types.ts";
import type { EventSink, StopReason } from "./events.ts";
import type { CallStep } from "./call-steps.ts";
import type { TurnHooks } from "./turn-hooks.ts";
import { newMessageId } from "./ids.ts";
import { compactHistory, estimateTokens, type CompactionBudget } from "./compaction.ts";
import { callModel } from "./model-call.ts";
import type { RequestBudget } from "./request-budget.ts";
import type { SteeringInbox } from "./steering-inbox.ts";
import { executeCall, prepareCall, type PreparedCall, type ToolAuthorizer } from "./tool-call.ts";
import { toolSpec } from "./tool-specs.ts";
import { PROVIDER_SEARCH_TOOL } from "../models/provider-search.ts";

export interface TurnContext {
  model: ModelClient;
  system: string;
  tools: readonly ToolDefinition[];
  workspace: Workspace;
  thinking: ThinkingLevel;
  /** Model calls left in this turn, shared with its subagents. */
  requests: RequestBudget;
  /** The conversation; the turn appends to it. */
  history: ModelMessage[];
  signal: AbortSignal;
  emit: EventSink;
  authorize?: ToolAuthorizer;
  /** Records a call's usage and returns the usage event to report. */
  recordUsage(usage: Usage): { used: number; size: number; cost?: number };
  /** When set, history that would not fit the window is summarised before a call. */
  compaction?: CompactionBudget;
  /** Messages sent while the turn runs; they land before the next model call. */
  steering?: SteeringInbox;
  /** Keeps the conversation's requests on one provider cache (the session id). */
  cacheKey?: string;
  /** The provider's own web search, offered when the model has one (it then replaces a search service's `web_search` tool). */
  webSearch?: { maxUses: number };
  /** The session's background commands. */
  backgroundCommands?: BackgroundCommandsView;
  /** Concerns acting around each tool call (see call-steps.ts). */
  steps?: readonly CallStep[];
  /** Runs the subagents of a `task` call (absent inside a subagent). */
  subagents?: (toolCallId: string) => SubagentHost;
  /** Asked before the turn ends and before a compaction (the session's hooks). */
  hooks?: TurnHooks;
  /** The turn is a subagent's (its end is a subagent's stop). */
  subagent?: true;
}

/** Calls of a concurrent tool (`task`) in one step that run at the same time. */
const MAX_CONCURRENT_CALLS = 4;

export async function runTurn(context: TurnContext, prompt: UserMessage, promptId: string = newMessageId()): Promise<StopReason> {
  const { history, signal, emit } = context;
  const append = async (message: ModelMessage, messageId = newMessageId()) => {
    history.push(message);
    await emit({ type: "message", message, messageId });
  };
  const before = history.length;
  try {
    await append(prompt, promptId);
  } catch (error) {
    // Not recorded, so not in the conversation either: the next prompt must not meet a message the journal never got.
    history.length = before;
    throw error;
  }

  // A model that searches by itself needs no search service: the provider's search replaces the tool of that name.
  const providerSearch = context.webSearch && context.model.providerSearch ? context.webSearch : undefined;
  const tools = (providerSearch ? context.tools.filter((tool) => tool.name !== PROVIDER_SEARCH_TOOL) : context.tools).map(toolSpec);
  // The system prompt's and the tools' share of every request of the turn: the same each step, so measured once.
  const fixedTokens = estimateTokens(context.system) + estimateTokens(tools);
  let stopHeld = false;
  for (let request = 1; ; request += 1) {
    if (signal.aborted) return "cancelled";
    if (context.compaction) await compactIfFull(context, fixedTokens);
    if (signal.aborted) return "cancelled";
    // The boundary: after the last step's tool results (and any compaction), right before the call that will see them.
    if (context.steering?.size) await context.steering.land(history, emit);
    // The budget is the turn's: a subagent started after its parent spent it makes no call.
    if (!context.requests.take()) return "max_turn_requests";
    const result = await callModel(
      context.model,
      {
        system: context.system,
        messages: history,
        tools,
        thinking: context.thinking,
        signal,
        ...(context.cacheKey ? { cacheKey: context.cacheKey } : {}),
        ...(providerSearch ? { webSearch: providerSearch } : {}),
      },
      emit,
    );
    if (result.usage) await emit({ type: "usage", ...context.recordUsage(result.usage) });

    if (result.error !== undefined) {
      if (request === 1 && !signal.aborted) await retract(context, prompt);
      if (signal.aborted) {
        // Keep what was said before the cancel; calls that never ran get a result so the history stays valid.
        const keep = { ...result.message, content: result.message.content.filter((p) => p.type !== "tool_call") };
        if (keep.content.length > 0) await append(keep);
        return "cancelled";
      }
      throw result.error;
    }
    if (result.message.content.length > 0) await append(result.message);

    if (result.cause === "length") return await closeUnrun(result.toolCalls, append, "max_tokens");
    if (result.cause === "refusal") return await closeUnrun(result.toolCalls, append, "refusal");
    // The provider paused its own searches: the next request carries the reply back and it goes on, within the turn's budget.
    if (result.cause === "pause" && result.toolCalls.length === 0) {
      if (context.requests.left <= 0) return "max_turn_requests";
      continue;
    }
    if (result.toolCalls.length === 0) {
      // A message steered in while the model gave its last reply still gets an answer in this turn.
      if (!context.steering?.size) {
        // A stop hook may send the model on with a reason; the turn's request budget bounds how often.
        const goOn = await context.hooks?.stopping?.({ subagent: context.subagent === true, active: stopHeld, signal });
        if (signal.aborted) return "cancelled";
        if (goOn === undefined) return "end_turn";
        if (context.requests.left <= 0) return "max_turn_requests";
        stopHeld = true;
        // Marked as the hook's: the user did not type it, so it is no point to rewind to.
        await append({ role: "user", content: [{ type: "text", text: goOn, addedBy: "hook" }] });
        continue;
      }
      if (context.requests.left <= 0) return "max_turn_requests";
      continue;
    }

    const prepared = result.toolCalls.map((call) => prepareCall(call, context.tools, context.workspace));
    for (const call of prepared) {
      await emit({
        type: "tool_call",
        toolCallId: call.part.id,
        toolName: call.part.name,
        kind: call.tool?.kind ?? "other",
        title: call.description.title,
        locations: call.description.locations,
        input: call.part.input,
      });
    }
    const run = (call: PreparedCall) =>
      executeCall(call, {
        workspace: context.workspace,
        signal,
        emit,
        ...(context.authorize ? { authorize: context.authorize } : {}),
        ...(context.backgroundCommands ? { backgroundCommands: context.backgroundCommands } : {}),
        ...(context.subagents ? { subagents: context.subagents } : {}),
        ...(context.steps ? { steps: context.steps } : {}),
      });
    for (let index = 0; index < prepared.length; ) {
      // A run of calls to a concurrent tool runs at once (bounded); any other call runs alone, in order.
      let end = index + 1;
      if (prepared[index]!.tool?.concurrent) while (end < prepared.length && prepared[end]!.tool?.concurrent) end += 1;
      const outcomes = await runBounded(prepared.slice(index, end), run);
      if (outcomes.some((o) => !o.ok)) {
        // Only an abort escapes a call; calls that finished before it keep their results, the rest get a cancelled one.
        if (!signal.aborted) throw outcomes.find((o) => !o.ok)!.error;
        for (const outcome of outcomes) if (outcome.ok) await append(outcome.value);
        const unrun = prepared.slice(index, end).filter((_, i) => !outcomes[i]!.ok);
        return await closeUnrun([...unrun, ...prepared.slice(end)].map((c) => c.part), append, "cancelled", emit);
      }
      for (const outcome of outcomes) if (outcome.ok) await append(outcome.value);
      index = end;
    }
    if (context.requests.left <= 0) return "max_turn_requests";
  }
}

/**
 * The turn's first model call failed: nothing of the turn was accepted, so
 * its prompt (and whatever was steered in before the call) leaves the
 * conversation again — a prompt a provider refuses must not break every
 * later one. Found by identity, as a compaction before the call may have
 * moved it; reported so the journal takes it back too.
 */
async function retract(context: TurnContext, prompt: UserMessage): Promise<void> {
  const at = context.history.lastIndexOf(prompt);
  if (at < 0) return;
  const messages = context.history.length - at;
  context.history.length = at;
  await context.emit({ type: "retracted", messages });
}

/**
 * Summarises older history when the next request would not leave the reply
 * its reserve. A failed summary is reported and the turn goes on: the
 * provider then decides whether the request still fits.
 */
async function compactIfFull(context: TurnContext, fixedTokens: number): Promise<void> {
  const budget = context.compaction!;
  const estimate = estimateTokens(context.history) + fixedTokens;
  if (estimate <= context.model.info.contextWindow - budget.reserveTokens) return;
  await context.hooks?.compacting?.("auto", context.signal).catch(() => undefined);
  try {
    await compactHistory({ history: context.history, model: context.model, budget, signal: context.signal, emit: context.emit, reason: "threshold", ...(context.cacheKey ? { cacheKey: context.cacheKey } : {}) });
  } catch (error) {
    if (context.signal.aborted) return;
    // Reported by compactHistory as a failed compaction; the turn continues with the full history.
    void error;
  }
}

/** Gives every tool call that will not run a failed result, so the next request is well-formed. */
async function closeUnrun(
  calls: readonly { id: string; name: string }[],
  append: (message: ModelMessage) => Promise<void>,
  reason: StopReason,
  emit?: EventSink,
): Promise<StopReason> {
  const text = reason === "cancelled" ? "Cancelled by the user before it finished." : `Not run: the model stopped (${reason}).`;
  for (const call of calls) {
    if (emit) await emit({ type: "tool_call_update", toolCallId: call.id, status: "failed", content: [{ type: "text", text }] });
    await append({ role: "tool", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text }], isError: true });
  }
  return reason;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `work` on each item, at most MAX_CONCURRENT_CALLS at once, and settles every one (in item order). */
async function runBounded<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<Settled<R>[]> {
  const out: Settled<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        out[index] = { ok: true, value: await work(items[index]!) };
      } catch (error) {
        out[index] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_CONCURRENT_CALLS, items.length) }, worker));
  return out;
}
