/**
 * What the server keeps track of: open WebSocket connections (for capacity
 * and shutdown), the Streamable HTTP connections (through their transport),
 * which sessions have `/apc` clients, and whether it still accepts work.
 * @module
 */
import type { HttpTransport } from "../acp/http/http-transport.ts";
import type { WebSocketStream } from "../transport/websocket-stream.ts";
import { deadlineInBackground } from "../runtime/timers.ts";
import { jsonError } from "./http-errors.ts";
import type { ServeLimits } from "./limits.ts";

export interface OpenConnection {
  stream: WebSocketStream;
  /** Settles once every request the connection received so far is answered (bounded). */
  answered(): Promise<void>;
  /** The durable session of an `/apc` connection. */
  sessionId?: string;
}

/** The HTTP transport as the capacity check sees it. */
export type HttpConnections = Pick<HttpTransport, "open" | "evictIdlest" | "evictableInMs">;

const NO_HTTP: HttpConnections = { open: () => 0, evictIdlest: () => false, evictableInMs: () => undefined };

/**
 * How long an upgrade that was let in may take to open its socket. An upgrade
 * whose client vanished mid-handshake may never say so (Node destroys such a
 * socket without an event we can see); its place is given back by then.
 */
const OPENING_DEADLINE_MS = 10_000;

/** An upgrade let in whose socket has not opened yet. */
interface OpeningPlace {
  sessionId?: string;
}

export class ServerState {
  readonly connections: Set<OpenConnection> = new Set();
  /** Upgrades let in whose sockets have not opened: counted like open connections, so handshakes decided at once cannot pass a limit together. */
  readonly #opening: Set<OpeningPlace> = new Set();
  draining = false;
  /** The Streamable HTTP connections (set by the app that owns them). */
  http: HttpConnections = NO_HTTP;

  /** Connections of both transports, for the shared capacity limit. */
  openConnections(): number {
    return this.connections.size + this.#opening.size + this.http.open();
  }

  /**
   * Holds a place for an upgrade just let in, until its socket is open and
   * counted as a connection, or the upgrade is abandoned; the returned
   * function gives it back (once; later calls do nothing).
   */
  reserve(sessionId?: string): () => void {
    const place: OpeningPlace = sessionId === undefined ? {} : { sessionId };
    this.#opening.add(place);
    const deadline = deadlineInBackground(OPENING_DEADLINE_MS, () => this.#opening.delete(place));
    return () => {
      deadline.cancel();
      this.#opening.delete(place);
    };
  }

  /** Open connections and upgrades still opening, with their `/apc` session. */
  #placesWithSession(): Iterable<{ sessionId?: string }> {
    return [...this.connections, ...this.#opening];
  }

  /**
   * Whether one more connection fits. When the server is full, the Streamable
   * HTTP connection idle the longest is closed to make room if it has been
   * idle at least `httpIdleEvictMs`: a client that crashed or walked away
   * cannot lock others out. Otherwise the refusal to send (503, with the
   * seconds until an idle connection could make room as `Retry-After`).
   */
  admit(limits: ServeLimits): Response | undefined {
    if (this.openConnections() < limits.maxConnections) return undefined;
    if (this.http.evictIdlest(limits.httpIdleEvictMs) && this.openConnections() < limits.maxConnections) return undefined;
    const wait = this.http.evictableInMs(limits.httpIdleEvictMs);
    const retryAfter = wait === undefined ? 5 : Math.max(1, Math.ceil(wait / 1000));
    return jsonError(503, "connection_capacity", `the server has reached its limit of ${limits.maxConnections} connections`, { "retry-after": String(retryAfter) });
  }

  /** `/apc` clients of one session. */
  clientsOf(sessionId: string): number {
    let n = 0;
    for (const c of this.#placesWithSession()) if (c.sessionId === sessionId) n += 1;
    return n;
  }

  /** Sessions with at least one `/apc` client. */
  attachedSessions(): Set<string> {
    const ids = new Set<string>();
    for (const c of this.#placesWithSession()) if (c.sessionId) ids.add(c.sessionId);
    return ids;
  }

  /** Closes the `/apc` connections of a session (it was deleted). */
  closeSessionClients(sessionId: string, reason: string): void {
    for (const c of this.connections) if (c.sessionId === sessionId) c.stream.close(1001, reason);
  }
}
