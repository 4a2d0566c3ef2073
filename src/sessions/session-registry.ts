/**
 * The sessions alive in this process, by id.
 * @module
 */
import type { AgentSession } from "../engine/session.ts";
import type { ApprovalMode, Settings } from "../config/settings-schema.ts";
import type { PromptTemplate } from "./prompt-templates.ts";
import type { Grant } from "../permissions/grants.ts";
import type { SessionRecorder } from "./session-recorder.ts";
import type { AgentContext, ClientCapabilities } from "../acp/sdk.ts";
import type { McpConnections } from "../tools/mcp/connections.ts";

/** A client connection attached to a session: it receives every update of the session. */
export interface Subscriber {
  /** The connection's id. */
  id: string;
  client: AgentContext;
  capabilities: ClientCapabilities;
}

export interface LiveSession {
  agent: AgentSession;
  cwd: string;
  additionalDirectories: string[];
  /** User settings merged with the project's, as they were when the session opened. */
  settings: Settings;
  /** The approval mode (the ACP session mode). */
  mode: ApprovalMode;
  /** "Always" answers the user gave in this session. */
  grants: Grant[];
  /** Writes the session's steps to its journal. */
  recorder: SessionRecorder;
  /** Prompt templates offered as slash commands. */
  templates: PromptTemplate[];
  /** Things to tell the user once the session is open (e.g. a model that is no longer available). */
  notices: string[];
  /** Whether the clients have been told the session is open; notices before that wait in `notices`. */
  announced: boolean;
  /** The MCP servers the client passed, when it passed any. */
  mcp?: McpConnections;
  title?: string;
  /** Connections attached to the session, by connection id. */
  subscribers: Map<string, Subscriber>;
  /** The connection whose prompt is running (it alone is asked for permissions). */
  turnOwner?: string;
  /** The prompt turn in flight, so close and shutdown can wait for it to settle. */
  turn?: Promise<unknown>;
}

export class SessionRegistry {
  readonly #sessions = new Map<string, LiveSession>();

  get(id: string): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  add(session: LiveSession): void {
    this.#sessions.set(session.agent.id, session);
  }

  remove(id: string): LiveSession | undefined {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    return session;
  }

  all(): LiveSession[] {
    return [...this.#sessions.values()];
  }

  /** Cancels a session's turn, waits for it, closes its journal and forgets it. */
  async release(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    session.agent.cancel("the session was closed");
    await session.turn?.catch(() => undefined);
    this.#sessions.delete(id);
    await Promise.all([session.recorder.journal.close(), session.mcp?.close()]);
  }

  /** Closes every session (end of process): turns cancelled, journals flushed and unlocked. */
  async releaseAll(): Promise<void> {
    await this.cancelAll();
    await Promise.all([...this.#sessions.keys()].map((id) => this.release(id)));
  }

  /** Cancels every running turn and waits (bounded) for them to settle. */
  async cancelAll(timeoutMs = 2000): Promise<void> {
    const turns: Promise<unknown>[] = [];
    for (const session of this.#sessions.values()) {
      session.agent.cancel("the agent is shutting down");
      if (session.turn) turns.push(session.turn.catch(() => undefined));
    }
    if (turns.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(turns), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }
}
