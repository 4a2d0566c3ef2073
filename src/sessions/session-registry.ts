/**
 * The sessions alive in this process, by id.
 * @module
 */
import type { LiveSession } from "./live-session.ts";

/** The sessions alive in this process, by id. */
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
