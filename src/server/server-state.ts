/**
 * What the server keeps track of: open WebSocket connections (for capacity
 * and shutdown), how many HTTP transport connections are open, which
 * sessions have `/apc` clients, and whether it still accepts work.
 * @module
 */
import type { WebSocketStream } from "../transport/websocket-stream.ts";

export interface OpenConnection {
  stream: WebSocketStream;
  /** Settles once every request the connection received so far is answered (bounded). */
  answered(): Promise<void>;
  /** The durable session of an `/apc` connection. */
  sessionId?: string;
}

export class ServerState {
  readonly connections: Set<OpenConnection> = new Set();
  draining = false;
  /** HTTP transport connections open now (set by the app that owns them). */
  httpConnections: () => number = () => 0;

  /** Connections of both transports, for the shared capacity limit. */
  openConnections(): number {
    return this.connections.size + this.httpConnections();
  }

  /** `/apc` clients of one session. */
  clientsOf(sessionId: string): number {
    let n = 0;
    for (const c of this.connections) if (c.sessionId === sessionId) n += 1;
    return n;
  }

  /** Sessions with at least one `/apc` client. */
  attachedSessions(): Set<string> {
    const ids = new Set<string>();
    for (const c of this.connections) if (c.sessionId) ids.add(c.sessionId);
    return ids;
  }

  /** Closes the `/apc` connections of a session (it was deleted). */
  closeSessionClients(sessionId: string, reason: string): void {
    for (const c of this.connections) if (c.sessionId === sessionId) c.stream.close(1001, reason);
  }
}
