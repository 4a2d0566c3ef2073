/**
 * One accepted WebSocket as an ACP connection: bounded stream, counted in the
 * server state while its socket is open (capacity, `/apc` clients, shutdown),
 * scoped to its durable session on `/apc`.
 * @module
 */
import { connectAgent } from "../acp/agent-app.ts";
import type { AgentServices } from "../sessions/services.ts";
import { log } from "../runtime/log.ts";
import type { WebSocketLike } from "../runtime/websocket/websocket-like.ts";
import { createWebSocketStream } from "../transport/websocket-stream.ts";
import type { SocketRoute } from "./handshake.ts";
import type { ServeLimits } from "./limits.ts";
import type { OpenConnection, ServerState } from "./server-state.ts";

/** Serves an open socket until it closes. */
export function serveSocket(services: AgentServices, limits: ServeLimits, state: ServerState, socket: WebSocketLike, route: SocketRoute): void {
  const stream = createWebSocketStream(socket, limits);
  const scope = route.kind === "apc" ? { sessionId: route.sessionId, cwd: route.cwd } : undefined;
  const served = connectAgent(services, stream, scope);
  const connection: OpenConnection = { stream, answered: served.answered, ...(route.kind === "apc" ? { sessionId: route.sessionId } : {}) };
  state.connections.add(connection);
  // Counted until its socket has closed, not until the connection has wound down (its turns cancelled and
  // answered, its sessions released): a client that has seen its socket close may connect again at once, and at
  // capacity it would be refused for a connection that no longer exists.
  const release = () => state.connections.delete(connection);
  void stream.closed.then(release);
  void served.closed
    .catch((error) => log.warn("a WebSocket connection failed", error))
    .finally(() => {
      release();
      stream.close(1000, "closed");
    });
}
