/**
 * A session alive in this process, and the clients attached to it. Nothing
 * here knows the wire: a client is anything that can be told the session's
 * news and can watch its turns.
 *
 * `LiveSession` is the one owner of a live session's state: every field is
 * private and read through a getter or a read-only view, and every change is
 * one of its named operations (attach, grant, announce, claim a turn, …).
 * The rest of this layer decides *when* to call them (and records and tells
 * what changed); other layers read the state and call this layer's functions.
 * @module
 */
import type { ApprovalMode, Settings } from "../config/settings-schema.ts";
import type { EngineEvent, EventSink, StopReason } from "../engine/events.ts";
import type { CompactionOutcome } from "../engine/compaction.ts";
import type { AgentSession, SessionTotals, TurnOptions } from "../engine/session.ts";
import type { ImagePart, ModelClient, ModelMessage, TextPart, ThinkingLevel } from "../models/types.ts";
import type { Grant } from "../permissions/grants.ts";
import type { McpConnections } from "../tools/mcp/connections.ts";
import type { LanguageServers } from "../lsp/session-lsp.ts";
import type { BackgroundCommandInfo } from "../tools/shell/background-commands.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { log } from "../runtime/log.ts";
import { contentChars } from "../engine/steering-inbox.ts";
import { fitsQueue, PROMPT_QUEUE_CHARS, PROMPT_QUEUE_LIMIT } from "./turns/prompt-queue.ts";
import type { PromptTemplate } from "./setup/prompt-templates.ts";
import type { Skill } from "./setup/skills.ts";
import type { AgentFile } from "./setup/agent-files.ts";
import type { SessionRecorder } from "./journal/session-recorder.ts";
import type { SessionSandbox } from "./session-sandbox.ts";
import type { SessionHooks } from "./hooks/session-hooks.ts";
import { SessionError } from "./session-error.ts";
import type { TurnClaim } from "./turns/turn-claim.ts";
import { TurnSlot, type ClaimRequest } from "./turns/turn-slot.ts";

/** What a session tells its clients outside the engine's turn events. */
export type SessionNews =
  /** Text from the agent outside a turn: a notice, a command's answer. */
  | { type: "message"; text: string }
  /** Part of a prompt another client sent. */
  | { type: "prompt"; part: TextPart | ImagePart }
  /** The title changed; null when it was cleared. */
  | { type: "title"; title: string | null; updatedAt: string }
  /** The mode, model or thinking level changed (`modeChanged` when the mode did). */
  | { type: "settings"; modeChanged: boolean }
  /** The slash commands changed (a command file or skill was added, edited or removed). */
  | { type: "commands" };

/**
 * What a client is to send: made once per view (see `SessionClient.viewKey`)
 * and sent as is to every client of that view. Opaque to this layer.
 */
export type ClientOutput = unknown;

/**
 * A client attached to a session: it sees every update of the session, in its
 * own form. Clients with the same `viewKey` see the same form, so each update
 * is prepared once for all of them (serialised once, not once per client).
 */
export interface SessionClient {
  /** The connection's id, unique in the process. */
  id: string;
  /** Clients with equal keys are shown identical output for the same news and events. */
  viewKey: string;
  /** What one piece of news looks like to clients of this view. */
  prepareNews(live: LiveSession, news: SessionNews): ClientOutput[];
  /** A view of one turn shared by the clients of this view (it keeps state such as output tails): what each event shows. */
  watchTurn(live: LiveSession): (event: EngineEvent) => ClientOutput[];
  /** Sends output prepared by a client of the same view; returns a promise only when the send is not done at once. Throws or rejects when the client is gone. */
  send(live: LiveSession, output: readonly ClientOutput[]): Promise<void> | void;
  /** Called once the client is attached to the session, so the connection can detach it when it closes. */
  attached(sessionId: string): void;
}

/** The engine session as everyone but its owner sees it: read only, no turns started behind the owner's back. */
export type AgentView = Readonly<Pick<AgentSession, "id" | "workspace" | "model" | "thinking" | "running" | "tools" | "contextUsed" | "systemPrompt">> & {
  readonly history: readonly ModelMessage[];
  readonly totals: Readonly<SessionTotals>;
};

/** What the work of a claim is told when the turn is its. */
export interface ClaimedTurn {
  /** Aborted when this turn is to stop: its request was cancelled, its client left, the session was cancelled or closed. */
  signal: AbortSignal;
  /** Whether it waited in the queue behind another turn. */
  waited: boolean;
}

/** What a live session is made of when it opens. */
export interface LiveSessionInit {
  agent: AgentSession;
  cwd: string;
  additionalDirectories: readonly string[];
  settings: Settings;
  mode: ApprovalMode;
  /** How the session's commands are confined. */
  sandbox: SessionSandbox;
  grants: readonly Grant[];
  recorder: SessionRecorder;
  templates: readonly PromptTemplate[];
  skills: readonly Skill[];
  /** Custom agents for the `task` tool. */
  agents: readonly AgentFile[];
  /** Things to tell the user once the session is announced. */
  notices: readonly string[];
  title?: string;
  /** The session's hooks, when its settings files have any. */
  hooks?: SessionHooks;
  /**
   * The event sink of a turn of this session (the journal, then the clients): where steered messages no turn
   * took are landed. Passed in because the emitter reads the live session, so it cannot be imported here.
   */
  emitterFor(live: LiveSession): EventSink;
}

/** A session alive in this process, with its settings and attached clients. */
export class LiveSession {
  /** The directory the session works in. */
  readonly cwd: string;
  /** Further roots the session may reach. */
  readonly additionalDirectories: readonly string[];
  /** User settings merged with the project's, as they were when the session opened. */
  readonly settings: Readonly<Settings>;
  /** Writes the session's steps to its journal. */
  readonly recorder: SessionRecorder;
  /** How the session's commands are confined. */
  readonly sandbox: SessionSandbox;
  /** The session's hooks, when its settings files have any. */
  readonly hooks: SessionHooks | undefined;
  readonly #agent: AgentSession;
  #templates: readonly PromptTemplate[];
  #skills: readonly Skill[];
  #agents: readonly AgentFile[];
  #mode: ApprovalMode;
  readonly #grants: Grant[];
  /** Notices waiting for the announcement; undefined once the session was announced. */
  #held: string[] | undefined;
  #title: string | undefined;
  #mcp: McpConnections | undefined;
  #languageServers: LanguageServers | undefined;
  readonly #clients = new Map<string, SessionClient>();
  /** Who holds the session's one turn (its client alone is asked for permissions) and who waits for it. */
  readonly #turn: TurnSlot;
  readonly #emitterFor: (live: LiveSession) => EventSink;

  constructor(init: LiveSessionInit) {
    this.#agent = init.agent;
    this.#turn = new TurnSlot(init.agent.id);
    this.cwd = init.cwd;
    this.additionalDirectories = init.additionalDirectories;
    this.settings = init.settings;
    this.sandbox = init.sandbox;
    this.hooks = init.hooks;
    this.#mode = init.mode;
    this.#grants = [...init.grants];
    this.recorder = init.recorder;
    this.#templates = init.templates;
    this.#skills = init.skills;
    this.#agents = init.agents;
    this.#held = [...init.notices];
    this.#title = init.title;
    this.#emitterFor = init.emitterFor;
  }

  /** The session's id. */
  get id(): string {
    return this.#agent.id;
  }

  /** The engine session, read only. */
  get agent(): AgentView {
    return this.#agent;
  }

  /** The approval mode (the session mode). */
  get mode(): ApprovalMode {
    return this.#mode;
  }

  /** "Always" answers the user gave in this session. */
  get grants(): readonly Grant[] {
    return this.#grants;
  }

  get title(): string | undefined {
    return this.#title;
  }

  /** Prompt templates and command files offered as slash commands. */
  get templates(): readonly PromptTemplate[] {
    return this.#templates;
  }

  /** The skills the session found (listed to the model, offered as commands). */
  get skills(): readonly Skill[] {
    return this.#skills;
  }

  /** The custom agents the session found (offered by the `task` tool). */
  get agents(): readonly AgentFile[] {
    return this.#agents;
  }

  /** The MCP servers the client passed, when it passed any. */
  get mcp(): McpConnections | undefined {
    return this.#mcp;
  }

  /** The client whose prompt holds the turn, if one does. */
  get turnOwner(): string | undefined {
    return this.#turn.holder?.clientId;
  }

  /** Whether a prompt holds the turn or the engine is running one. */
  get busy(): boolean {
    return this.#turn.holder !== undefined || this.#agent.running;
  }

  /** How many prompts wait for the turn. */
  get queued(): number {
    return this.#turn.waiting;
  }

  /** The attached clients, in attachment order. */
  clients(): IterableIterator<SessionClient> {
    return this.#clients.values();
  }

  /** Whether `clientId` is attached. */
  hasClient(clientId: string): boolean {
    return this.#clients.has(clientId);
  }

  // ---------- clients ----------

  /** Attaches a client: from now on it sees every update of the session. */
  attach(client: SessionClient): void {
    this.#clients.set(client.id, client);
    client.attached(this.id);
  }

  /** Detaches a client (it left, or failed a send). Returns how many clients remain. */
  detach(clientId: string): number {
    this.#clients.delete(clientId);
    return this.#clients.size;
  }

  // ---------- what the user decided ----------

  /** Remembers an "always" answer and records it; durable when this resolves. */
  async grant(grant: Grant): Promise<void> {
    this.#grants.push(grant);
    await this.recorder.write({ type: "grant", grant }, true);
  }

  /** Changes the approval mode (the caller records and tells it). */
  setMode(mode: ApprovalMode): void {
    this.#mode = mode;
  }

  /** Switches the model the next turn uses (the caller records and tells it). */
  setModel(model: ModelClient): void {
    this.#agent.model = model;
  }

  /** Changes the thinking level (the caller records and tells it). */
  setThinking(level: ThinkingLevel): void {
    this.#agent.thinking = level;
  }

  /** Sets or (with null) clears the title (the caller records and tells it). */
  setTitle(title: string | null): void {
    this.#title = title ?? undefined;
  }

  // ---------- what the session is given ----------

  /** Replaces the session's MCP servers, closing the ones it had. */
  async replaceMcp(mcp: McpConnections | undefined): Promise<void> {
    const previous = this.#mcp;
    this.#mcp = undefined;
    await previous?.close();
    this.#mcp = mcp;
  }

  /** The session's language servers, once its first change of a file loaded them. */
  get languageServers(): LanguageServers | undefined {
    return this.#languageServers;
  }

  /** Gives the session its language servers (stopped when it closes, or at once when it already has). */
  attachLanguageServers(servers: LanguageServers): void {
    if (this.closed) void servers.close();
    else this.#languageServers = servers;
  }

  /** The tools the next turn offers the model. */
  offerTools(tools: readonly ToolDefinition[]): void {
    this.#agent.tools = tools;
  }

  /** The command files, skills and custom agents from now on (they are read again when their files change; the caller tells what changed). */
  offerCommandFiles(templates: readonly PromptTemplate[], skills: readonly Skill[], agents: readonly AgentFile[]): void {
    this.#templates = templates;
    this.#skills = skills;
    this.#agents = agents;
  }

  /** The system prompt the next turn sends (rebuilt when context files change). */
  setSystemPrompt(text: string): void {
    this.#agent.systemPrompt = text;
  }

  // ---------- telling the clients it is open ----------

  /** Whether the clients have been told the session is open. */
  get announced(): boolean {
    return this.#held === undefined;
  }

  /**
   * Keeps a notice for the announcement when the session has not been
   * announced yet (returns true); once it has, the caller tells it at once.
   */
  holdNotice(text: string): boolean {
    if (!this.#held) return false;
    this.#held.push(text);
    return true;
  }

  /** The session is being announced to a client: returns the notices held until now (once); later notices are not held. */
  announce(): string[] {
    const held = this.#held ?? [];
    this.#held = undefined;
    return held;
  }

  // ---------- turns ----------

  /**
   * Runs `work` holding the session's one turn for `request.clientId` (a
   * prompt, a command, a turn started by steering). While another claim
   * holds it, this one waits in the queue (first come, first served; past
   * the bound it is refused with `queue_full`) and resolves `cancelled`
   * without running when it is dropped: its request cancelled, its client
   * gone, a session cancel, the session closed. Messages steered in while it
   * waited and never landed join the conversation before the next claim runs.
   */
  async claimTurn<T>(request: ClaimRequest, work: (turn: ClaimedTurn) => Promise<T>): Promise<T | "cancelled"> {
    const held = await this.#turn.acquire(request);
    if (!held) return "cancelled";
    const { claim, waited } = held;
    const stop = () => claim.abort(reasonOf(request.signal));
    if (request.signal.aborted) stop();
    else request.signal.addEventListener("abort", stop, { once: true });
    try {
      return await work({ signal: claim.signal, waited });
    } finally {
      request.signal.removeEventListener("abort", stop);
      claim.endTurn();
      await this.#landLeftovers();
      this.#turn.release(claim);
    }
  }

  /** Steered messages a turn accepted but never took (it ended first, or never started) join the conversation now. */
  async #landLeftovers(): Promise<void> {
    if (this.#agent.steeringWaiting.messages === 0) return;
    try {
      await this.#agent.landSteering(this.#emitterFor(this));
      await this.recorder.settle();
    } catch (error) {
      log.warn(`session ${this.id}: steered messages could not be recorded`, error);
    }
  }

  /**
   * The engine turn of the current claim; stopped when the claim is. The one
   * place a turn's options are put together; steered messages reach it
   * through the engine session's inbox (see `inject`).
   */
  async runTurn(content: Array<TextPart | ImagePart>, emit: EventSink, options: TurnOptions): Promise<StopReason> {
    const claim = this.#current("runTurn");
    try {
      return await this.#stoppedWith(claim, this.#agent.prompt(content, emit, { ...options, settle: () => this.recorder.settle() }));
    } finally {
      claim.endTurn();
    }
  }

  /** Summarises the conversation now (`/compact`), within the current claim; stopped when the claim is. */
  async compact(emit: EventSink, instructions?: string): Promise<CompactionOutcome | undefined> {
    return await this.#stoppedWith(this.#current("compact"), this.#agent.compact(emit, instructions));
  }

  /** Puts the conversation read back after a rewind in place of the current one, within the current claim. */
  replaceHistory(history: readonly ModelMessage[]): void {
    this.#current("replaceHistory");
    this.#agent.replaceHistory(history);
  }

  #current(what: string): TurnClaim {
    const claim = this.#turn.holder;
    if (claim === undefined) throw new Error(`${what} outside a claimed turn`);
    return claim;
  }

  /** Awaits engine work just started (it is running, so `cancel` reaches it), cancelling it when the claim stops. */
  async #stoppedWith<T>(claim: TurnClaim, work: Promise<T>): Promise<T> {
    const stop = () => this.#agent.cancel(claim.stopReason);
    if (claim.signal.aborted) stop();
    else claim.signal.addEventListener("abort", stop, { once: true });
    try {
      return await work;
    } finally {
      claim.signal.removeEventListener("abort", stop);
    }
  }

  /**
   * Hands a steered message to the running turn, which adds it to the
   * conversation at its next boundary between model calls; false when no
   * turn can take it (idle, a built-in command, a turn already stopping or
   * done). Past the bound of waiting messages it is refused with `queue_full`.
   */
  inject(content: Array<TextPart | ImagePart>): boolean {
    if (!this.takesSteering) return false;
    this.checkSteeringRoom(contentChars(content));
    this.#agent.steer(content);
    return true;
  }

  /** Whether a turn runs that can take a steered message now (see `inject`). */
  get takesSteering(): boolean {
    return !this.#turn.closed && this.#turn.holder?.takesSteering === true;
  }

  /** Throws `queue_full` when a steered message of `size` would not fit beside those waiting: checked before it is read. */
  checkSteeringRoom(size: number): void {
    const waiting = this.#agent.steeringWaiting;
    if (!fitsQueue(waiting.messages, waiting.chars, size)) {
      throw new SessionError(
        "queue_full",
        `at most ${PROMPT_QUEUE_LIMIT} steering messages or ${PROMPT_QUEUE_CHARS} characters wait for the turn's next step; try again after it`,
        { sessionId: this.id, queue: "steering", limit: PROMPT_QUEUE_LIMIT, maxChars: PROMPT_QUEUE_CHARS },
      );
    }
  }

  /** Stops the running turn and drops every waiting prompt (they are answered `cancelled`); later prompts run as usual. */
  cancel(reason = "cancelled by the client"): void {
    this.#turn.stop(reason);
    this.#agent.cancel(reason);
  }

  /** Stops the turn `clientId` holds and drops the prompts it queued; other clients' prompts go on. */
  cancelTurnOf(clientId: string, reason: string): void {
    this.#turn.stop(reason, clientId);
  }

  /** Whether the session was closed in this process (released, archived or deleted): nothing more is written to it. */
  get closed(): boolean {
    return this.#turn.closed;
  }

  /** Settles when the current claim (if any) is done, however it ended. */
  async turnSettled(): Promise<void> {
    await this.#turn.holder?.finished;
  }

  /** The commands the model runs in the background now, oldest first. */
  backgroundCommands(): BackgroundCommandInfo[] {
    return this.#agent.backgroundCommands.list();
  }

  /** Set when the agent leaves at once (a second signal): a close no longer waits for SessionEnd hooks, and ends them. */
  readonly #leavingAtOnce = new AbortController();

  /** The agent is leaving at once: a close (running or to come) stops waiting for SessionEnd hooks. */
  stopWaitingForHooks(): void {
    this.#leavingAtOnce.abort();
  }

  /** Ends the session in this process: waiting prompts dropped, its turn cancelled and awaited, its background commands ended, its journal, MCP and language servers and sandbox network closed. */
  async close(reason: string): Promise<void> {
    this.#turn.close();
    this.cancel(reason);
    await this.turnSettled();
    // SessionEnd hooks run once its last turn is over, as it leaves this process (waited for a few seconds at most).
    await this.hooks?.sessionEnded("other", this.#leavingAtOnce.signal);
    // The journal closes after the background commands ended and what they changed at the end was recorded.
    const commandsEnded = this.#agent.backgroundCommands.closeAll().finally(() => Promise.all([this.sandbox.close(), this.recorder.journal.close()]));
    await Promise.all([commandsEnded, this.#mcp?.close(), this.#languageServers?.close()]);
  }
}

/** The text of an abort reason, for the engine's cancellation. */
function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "the request was cancelled";
}
