/**
 * The sessions alive in this process, by id.
 * @module
 */
import type { LiveSession } from "./live-session.ts";

/**
 * The sessions alive in this process, by id. Opening and closing a stored
 * session take time (its lock, its journal); while either is under way the
 * registry holds the promise, so concurrent joins share one opening and a
 * join during a close waits for the close and then opens the file afresh:
 * a session's journal is never open twice, and never left unclosed.
 */
export class SessionRegistry {
  readonly #sessions = new Map<string, LiveSession>();
  readonly #opening = new Map<string, Promise<LiveSession>>();
  readonly #closing = new Map<string, Promise<void>>();
  /** The sessions `release` is closing now (out of `#sessions` already), so a hurried shutdown can reach them. */
  readonly #leaving = new Map<string, LiveSession>();
  readonly #deletionWatchers = new Set<(id: string, reason: string) => void>();

  /**
   * Calls `watcher` whenever a session is about to be deleted, however it is
   * asked for (ACP `session/delete` or the REST API), so that whatever holds
   * its clients elsewhere (the server's `/apc` sockets) lets them go; returns
   * the function that stops watching.
   */
  watchDeletions(watcher: (id: string, reason: string) => void): () => void {
    this.#deletionWatchers.add(watcher);
    return () => this.#deletionWatchers.delete(watcher);
  }

  /** Tells the deletion watchers that session `id` is being deleted. */
  deleting(id: string, reason: string): void {
    for (const watcher of this.#deletionWatchers) watcher(id, reason);
  }

  get(id: string): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  add(session: LiveSession): void {
    this.#sessions.set(session.id, session);
  }

  remove(id: string): LiveSession | undefined {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    return session;
  }

  all(): LiveSession[] {
    return [...this.#sessions.values()];
  }

  /**
   * The live session `id`, or the one `open` brings back — opened once however
   * many callers ask at the same time, and only after a close under way has ended.
   * A caller never inherits another caller's failure: when a shared opening
   * fails, the callers that were waiting on it try again with their own `open`.
   */
  async getOrOpen(id: string, open: () => Promise<LiveSession>): Promise<LiveSession> {
    for (;;) {
      const closing = this.#closing.get(id);
      if (closing) {
        await closing;
        continue;
      }
      const live = this.#sessions.get(id);
      if (live) return live;
      const opening = this.#opening.get(id);
      if (opening) {
        try {
          return await opening;
        } catch {
          // That opening failed for its caller (its cwd, its moment); ours gets its own try and its own answer.
          if (this.#opening.get(id) === opening) this.#opening.delete(id);
          continue;
        }
      }
      const started = open().then((session) => {
        this.#sessions.set(id, session);
        return session;
      });
      this.#opening.set(id, started);
      try {
        return await started;
      } finally {
        this.#opening.delete(id);
      }
    }
  }

  /**
   * Runs `work` with session `id` as it is now: the live session when it is
   * open in this process (after an opening under way), else `undefined` — and
   * then no join opens it until `work` is done, so what `work` does to the
   * stored session cannot race a journal opened beside it.
   */
  async withSession<T>(id: string, work: (live: LiveSession | undefined) => Promise<T>): Promise<T> {
    for (;;) {
      if (await this.#settledChange(id)) continue;
      const live = this.#sessions.get(id);
      return live ? await work(live) : await this.#holding(id, () => work(undefined));
    }
  }

  /**
   * Releases session `id` when it is live (its turn cancelled and awaited, its
   * journal closed), then runs `work` before any join may open it again.
   */
  async whileReleased<T>(id: string, reason: string, work: () => Promise<T>): Promise<T> {
    while (await this.#settledChange(id));
    const live = this.#sessions.get(id);
    this.#sessions.delete(id);
    return await this.#holding(id, async () => {
      await live?.close(reason);
      return await work();
    });
  }

  /** Waits for an opening or closing of `id` under way; false when there was none. */
  async #settledChange(id: string): Promise<boolean> {
    const change = this.#closing.get(id) ?? this.#opening.get(id);
    if (!change) return false;
    await change.catch(() => undefined);
    return true;
  }

  /** Runs `task` as if `id` were closing: joins and releases of it wait until it is done. */
  async #holding<T>(id: string, task: () => Promise<T>): Promise<T> {
    const running = task();
    const held = running.then(
      () => undefined,
      () => undefined,
    );
    this.#closing.set(id, held);
    try {
      return await running;
    } finally {
      if (this.#closing.get(id) === held) this.#closing.delete(id);
    }
  }

  /** Cancels a session's turn, waits for it, closes its journal and forgets it. */
  async release(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return await this.#closing.get(id);
    // Out of the map at once: nobody may join a session that is closing.
    this.#sessions.delete(id);
    const closed = (async () => {
      await session.close("the session was closed");
    })();
    this.#closing.set(id, closed);
    this.#leaving.set(id, session);
    try {
      await closed;
    } finally {
      this.#closing.delete(id);
      this.#leaving.delete(id);
    }
  }

  /**
   * Closes every session (end of process): turns cancelled, journals flushed and unlocked.
   * `atOnce` (a second signal): no close waits for SessionEnd hooks, those running are ended.
   */
  async releaseAll(atOnce = false): Promise<void> {
    const hurry = () => {
      if (atOnce) for (const session of [...this.#sessions.values(), ...this.#leaving.values()]) session.stopWaitingForHooks();
    };
    hurry();
    await this.cancelAll();
    await Promise.allSettled([...this.#opening.values()]);
    // Sessions opened meanwhile are hurried too.
    hurry();
    await Promise.all([...this.#sessions.keys(), ...this.#closing.keys()].map((id) => this.release(id)));
  }

  /** Cancels every running turn and waits (bounded) for them to settle. */
  async cancelAll(timeoutMs = 2000): Promise<void> {
    const turns: Promise<unknown>[] = [];
    for (const session of this.#sessions.values()) {
      session.cancel("the agent is shutting down");
      if (session.busy) turns.push(session.turnSettled());
    }
    if (turns.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(turns), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }
}
