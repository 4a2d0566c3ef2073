/**
 * One conversation with the agent: its history, model, tools and the turn
 * that may be running. At most one turn runs at a time; `cancel` stops it,
 * `steer` hands it a message for its next boundary between model calls.
 * @module
 */
import { callCost, contextTokens } from "../models/cost.ts";
import type { ImagePart, ModelClient, ModelMessage, TextPart, ThinkingLevel, Usage } from "../models/types.ts";
import { BackgroundCommands } from "../tools/shell/background-commands.ts";
import type { ToolDefinition, Workspace } from "../tools/types.ts";
import { compactHistory, type CompactionBudget, type CompactionOutcome } from "./compaction.ts";
import type { EventSink, StopReason } from "./events.ts";
import { SteeringInbox } from "./steering-inbox.ts";
import type { ToolAuthorizer } from "./tool-call.ts";
import type { CallStep } from "./call-steps.ts";
import type { TurnHooks } from "./turn-hooks.ts";
import { RequestBudget } from "./request-budget.ts";
import { subagentHost } from "./subagent.ts";
import { runTurn, type TurnContext } from "./turn.ts";

export interface AgentSessionInit {
  id: string;
  workspace: Workspace;
  tools: readonly ToolDefinition[];
  model: ModelClient;
  thinking: ThinkingLevel;
  systemPrompt: string;
  maxTurnRequests: number;
  history?: ModelMessage[];
  /** Automatic compaction; off when undefined. */
  compaction?: CompactionBudget;
  /** Concerns acting around each tool call of every turn (see call-steps.ts). */
  steps?: readonly CallStep[];
  /** Asked before a turn ends and before a compaction. */
  hooks?: TurnHooks;
  /** The provider's own web search, where the model has one; off when undefined. */
  webSearch?: { maxUses: number };
}

/** Thrown by `prompt` while another turn of the same session runs. */
export class SessionBusyError extends Error {
  override name = "SessionBusyError";
  constructor() {
    super("session is already processing a prompt");
  }
}

export interface TurnOptions {
  authorize?: ToolAuthorizer;
  workspace?: Workspace;
  /** Tools offered in this turn only, beside the session's (e.g. one that needs the prompting client). */
  tools?: readonly ToolDefinition[];
  /** Awaited while the turn still counts as running, after its last event (e.g. what was recorded is made durable). */
  settle?: () => Promise<void>;
  /** Told the tokens of each model call of the turn (a prompt's answer sums them). */
  onUsage?: (usage: Usage) => void;
  /** The prompt's message id (the client's, or one the caller minted); a new one when absent. */
  messageId?: string;
}

export interface SessionTotals extends Usage {
  /** USD, when every model used had a known price. */
  cost?: number;
  requests: number;
}

export class AgentSession {
  readonly id: string;
  readonly workspace: Workspace;
  readonly history: ModelMessage[];
  tools: readonly ToolDefinition[];
  model: ModelClient;
  thinking: ThinkingLevel;
  systemPrompt: string;
  maxTurnRequests: number;
  compaction?: CompactionBudget;
  webSearch?: { maxUses: number };
  readonly totals: SessionTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, requests: 0, cost: 0 };
  /** Tokens in context after the last model call (0 before the first). */
  contextUsed = 0;
  /** Commands the model started in the background; they belong to the session, not to a turn. */
  readonly backgroundCommands: BackgroundCommands = new BackgroundCommands();
  readonly #steps: readonly CallStep[];
  readonly #hooks: TurnHooks | undefined;
  #turn?: AbortController;
  readonly #steering = new SteeringInbox();

  constructor(init: AgentSessionInit) {
    this.id = init.id;
    this.workspace = init.workspace;
    this.tools = init.tools;
    this.model = init.model;
    this.thinking = init.thinking;
    this.systemPrompt = init.systemPrompt;
    this.maxTurnRequests = init.maxTurnRequests;
    this.history = init.history ?? [];
    if (init.compaction) this.compaction = init.compaction;
    if (init.webSearch) this.webSearch = init.webSearch;
    this.#steps = init.steps ?? [];
    this.#hooks = init.hooks;
  }

  get running(): boolean {
    return this.#turn !== undefined;
  }

  /**
   * Runs one turn to its end. Provider failures reject (the session stays
   * usable); cancellation resolves `cancelled`. `workspace` replaces the
   * session's own for this turn (e.g. one that reaches the prompting editor).
   */
  async prompt(content: Array<TextPart | ImagePart>, emit: EventSink, options: TurnOptions = {}): Promise<StopReason> {
    if (this.#turn) throw new SessionBusyError();
    const controller = new AbortController();
    this.#turn = controller;
    try {
      const stopReason = await this.#run(content, emit, options, controller);
      await options.settle?.();
      return stopReason;
    } catch (error) {
      // Whatever the turn's own outcome, what it recorded is settled before it ends; the turn's error wins.
      await options.settle?.().catch(() => undefined);
      if (controller.signal.aborted) return "cancelled";
      throw error;
    } finally {
      this.#turn = undefined;
    }
  }

  #run(content: Array<TextPart | ImagePart>, emit: EventSink, options: TurnOptions, controller: AbortController): Promise<StopReason> {
    const context: TurnContext = {
      model: this.model,
      system: this.systemPrompt,
      tools: options.tools ? [...this.tools, ...options.tools] : this.tools,
      workspace: options.workspace ?? this.workspace,
      thinking: this.model.info.reasoning ? this.thinking : "off",
      requests: new RequestBudget(this.maxTurnRequests),
      history: this.history,
      signal: controller.signal,
      emit,
      ...(options.authorize ? { authorize: options.authorize } : {}),
      recordUsage: (usage) => {
        options.onUsage?.(usage);
        return this.#record(usage, true);
      },
      ...(this.compaction ? { compaction: this.compaction } : {}),
      steering: this.#steering,
      cacheKey: this.id,
      ...(this.webSearch ? { webSearch: this.webSearch } : {}),
      backgroundCommands: this.backgroundCommands,
      steps: this.#steps,
      ...(this.#hooks ? { hooks: this.#hooks } : {}),
      // A subagent's calls cost the session like the turn's own, but its context is not the session's.
      subagents: (toolCallId) =>
        subagentHost(context, toolCallId, (usage) => {
          options.onUsage?.(usage);
          return this.#record(usage, false);
        }),
    };
    return runTurn(context, { role: "user", content }, options.messageId);
  }

  /**
   * Puts `history` in place of the conversation (a rewind, read back from the
   * journal). Refused while a turn runs: the turn would go on with the old one.
   */
  replaceHistory(history: readonly ModelMessage[]): void {
    if (this.#turn) throw new SessionBusyError();
    this.history.splice(0, this.history.length, ...history);
    // Unknown until the next model call; 0 rather than the size of a conversation that is gone.
    this.contextUsed = 0;
  }

  /**
   * Summarises the conversation now (`/compact`), keeping only the latest
   * prompt and what followed it verbatim. Resolves undefined when there is
   * too little history to summarise. Counts as a turn: refused while one runs.
   */
  async compact(emit: EventSink, instructions?: string): Promise<CompactionOutcome | undefined> {
    if (this.#turn) throw new SessionBusyError();
    const controller = new AbortController();
    this.#turn = controller;
    try {
      await this.#hooks?.compacting?.("manual", controller.signal, instructions).catch(() => undefined);
      return await compactHistory({
        history: this.history,
        model: this.model,
        budget: this.compaction ?? { reserveTokens: 0, keepRecentTokens: 0 },
        ...(instructions ? { instructions } : {}),
        signal: controller.signal,
        emit,
        reason: "manual",
        cacheKey: this.id,
      });
    } finally {
      this.#turn = undefined;
    }
  }

  /** Messages steered in that have not joined the conversation yet, and their characters. */
  get steeringWaiting(): { messages: number; chars: number } {
    return { messages: this.#steering.size, chars: this.#steering.chars };
  }

  /** Hands a message to the turn: it joins the conversation before the turn's next model call. */
  steer(content: Array<TextPart | ImagePart>): void {
    this.#steering.push(content);
  }

  /**
   * Adds the steered messages still waiting to the conversation now, without
   * a model call: for a turn that ended (or never started) after accepting
   * them, so none is lost; the next turn's model call sees them.
   */
  async landSteering(emit: EventSink): Promise<void> {
    if (this.#turn) throw new SessionBusyError();
    await this.#steering.land(this.history, emit);
  }

  /** Stops the running turn, if any: the model stream and tools are aborted at once. */
  cancel(reason = "cancelled by the client"): void {
    this.#turn?.abort(new DOMException(reason, "AbortError"));
  }

  /** Adds a call's usage to the totals; `inContext`: the call was the session's own, so its tokens are the context now. */
  #record(usage: Usage, inContext: boolean): { used: number; size: number; cost?: number } {
    const t = this.totals;
    t.input += usage.input;
    t.output += usage.output;
    t.cacheRead += usage.cacheRead;
    t.cacheWrite += usage.cacheWrite;
    t.requests += 1;
    const cost = callCost(this.model.info, usage);
    t.cost = cost === undefined || t.cost === undefined ? undefined : t.cost + cost;
    if (inContext) this.contextUsed = contextTokens(usage);
    return { used: this.contextUsed, size: this.model.info.contextWindow, ...(t.cost === undefined ? {} : { cost: t.cost }) };
  }
}
