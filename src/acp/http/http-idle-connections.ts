/**
 * Which Streamable HTTP connections are idle, and for how long. Over HTTP a
 * client that crashed or walked away sends nothing, so the server has to
 * notice: a connection is busy while anything holds it — a request under
 * way, an open event stream, a request of its client not yet answered (a
 * running turn is one) — and idle otherwise. Each idle connection has one
 * deadline, armed when its last hold ends and cleared by the next hold; at
 * the deadline it is closed. When the server is full, the connection idle
 * the longest can also be closed early to let a new client in.
 * @module
 */

/** One connection as tracked here. */
export interface TrackedConnection {
  /** Set once its `initialize` has been answered with an `Acp-Connection-Id`. */
  id?: string;
  /** Marks one reason to stay open; the function returned ends it (calling it again does nothing). */
  hold(): () => void;
}

interface Entry extends TrackedConnection {
  holds: number;
  /** When the last hold ended (`performance.now()`), undefined while held. */
  idleSince: number | undefined;
  deadline: ReturnType<typeof setTimeout> | undefined;
  gone: boolean;
}

/** What the tracker needs from its owner. */
export interface IdleOptions {
  /** Idle this long, a connection is closed. */
  idleMs: number;
  /** Closes a connection the way its client's DELETE would. */
  close(id: string, idleMs: number, why: "idle" | "evicted"): void;
}

/** The Streamable HTTP connections of one server and their idleness. */
export class IdleHttpConnections {
  readonly #entries = new Set<Entry>();
  readonly #byId = new Map<string, Entry>();

  constructor(private readonly options: IdleOptions) {}

  /** Connections open or being opened (an `initialize` under way counts). */
  get size(): number {
    return this.#entries.size;
  }

  /** Open connections that are idle now. */
  get idle(): number {
    let n = 0;
    for (const entry of this.#byId.values()) if (entry.idleSince !== undefined) n += 1;
    return n;
  }

  /** Starts tracking a connection being opened: it has no deadline until it is named. */
  opening(): TrackedConnection {
    const entry: Entry = { holds: 0, idleSince: performance.now(), deadline: undefined, gone: false, hold: () => this.#hold(entry) };
    this.#entries.add(entry);
    return entry;
  }

  /** The connection's id is known (its `initialize` was answered): from now on it can be found and closed. */
  named(connection: TrackedConnection, id: string): void {
    const entry = connection as Entry;
    if (entry.gone) return;
    entry.id = id;
    this.#byId.set(id, entry);
    // Its `initialize` was answered just now: idleness starts here.
    if (entry.holds === 0) entry.idleSince = performance.now();
    this.#arm(entry);
  }

  /** The tracked connection with this id, if it is still open. */
  get(id: string): TrackedConnection | undefined {
    return this.#byId.get(id);
  }

  /** The connection closed (its client's DELETE, a limit, shutdown): forget it. */
  closed(connection: TrackedConnection): void {
    this.#forget(connection as Entry);
  }

  /** Closes the connection idle the longest if it has been idle at least `minIdleMs`; whether one was closed. */
  evictIdlest(minIdleMs: number): boolean {
    const entry = this.#idlest();
    if (!entry || performance.now() - entry.idleSince! < minIdleMs) return false;
    this.#close(entry, "evicted");
    return true;
  }

  /** How long until the connection idle the longest may be evicted; undefined when none is idle. */
  evictableInMs(minIdleMs: number): number | undefined {
    const entry = this.#idlest();
    return entry ? Math.max(0, minIdleMs - (performance.now() - entry.idleSince!)) : undefined;
  }

  /** Stops every deadline (the server is shutting down and closes the connections itself). */
  clear(): void {
    for (const entry of this.#entries) clearTimeout(entry.deadline);
    this.#entries.clear();
    this.#byId.clear();
  }

  #idlest(): Entry | undefined {
    let idlest: Entry | undefined;
    for (const entry of this.#byId.values()) {
      if (entry.idleSince !== undefined && (idlest === undefined || entry.idleSince < idlest.idleSince!)) idlest = entry;
    }
    return idlest;
  }

  #hold(entry: Entry): () => void {
    if (entry.gone) return () => undefined;
    entry.holds += 1;
    entry.idleSince = undefined;
    clearTimeout(entry.deadline);
    entry.deadline = undefined;
    let released = false;
    return () => {
      if (released || entry.gone) return;
      released = true;
      entry.holds -= 1;
      if (entry.holds === 0) {
        entry.idleSince = performance.now();
        this.#arm(entry);
      }
    };
  }

  #arm(entry: Entry): void {
    if (entry.gone || entry.holds > 0 || entry.id === undefined) return;
    clearTimeout(entry.deadline);
    entry.deadline = setTimeout(() => this.#close(entry, "idle"), this.options.idleMs);
  }

  #close(entry: Entry, why: "idle" | "evicted"): void {
    const idleMs = Math.round(performance.now() - (entry.idleSince ?? performance.now()));
    this.#forget(entry);
    this.options.close(entry.id!, idleMs, why);
  }

  #forget(entry: Entry): void {
    entry.gone = true;
    clearTimeout(entry.deadline);
    this.#entries.delete(entry);
    if (entry.id !== undefined && this.#byId.get(entry.id) === entry) this.#byId.delete(entry.id);
  }
}
