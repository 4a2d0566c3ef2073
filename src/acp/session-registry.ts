/**
 * The sessions alive in this process, by id.
 * @module
 */
import type { AgentSession } from "../engine/session.ts";
import type { ApprovalMode, Settings } from "../config/settings-schema.ts";
import type { Grant } from "./permissions/grants.ts";

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
