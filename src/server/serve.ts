/**
 * Running the sidecar: listen, serve each accepted WebSocket as an ACP
 * connection (scoped for `/apc`), and shut down gracefully — not ready,
 * no new connections, running turns cancelled (and answered), journals
 * flushed, sockets closed with 1001.
 * @module
 */
import { serveConnection } from "../acp/agent-app.ts";
import type { AgentServices } from "../sessions/services.ts";
import { listenHttp } from "../runtime/http-server.ts";
import { log } from "../runtime/log.ts";
import { createWebSocketStream } from "../transport/websocket-stream.ts";
import { createServerApp } from "./app.ts";
import { decideUpgrade, type SocketRoute } from "./handshake.ts";
import type { ServeLimits } from "./limits.ts";
import { ServerState, type OpenConnection } from "./server-state.ts";

export interface ServeOptions {
  hostname: string;
  port: number;
  token: string;
  limits: ServeLimits;
}

export interface RunningServer {
  url: string;
  port: number;
  state: ServerState;
  /** Graceful shutdown; resolves when everything is closed. */
  shutdown(): Promise<void>;
}

export async function startServer(services: AgentServices, options: ServeOptions): Promise<RunningServer> {
  const state = new ServerState();
  const app = createServerApp({ services, token: options.token, limits: options.limits, state });
  const server = await listenHttp<SocketRoute>({
    hostname: options.hostname,
    port: options.port,
    maxPayload: options.limits.maxMessageBytes,
    fetch: (request) => app.fetch(request),
    upgrade: (request) => decideUpgrade(request, { token: options.token, store: services.store, limits: options.limits, state }),
    onSocket(socket, route) {
      const stream = createWebSocketStream(socket, options.limits);
      const connection: OpenConnection = { stream, ...(route.kind === "apc" ? { sessionId: route.sessionId } : {}) };
      state.connections.add(connection);
      const scope = route.kind === "apc" ? { sessionId: route.sessionId, cwd: route.cwd } : undefined;
      void serveConnection(services, stream, scope)
        .catch((error) => log.warn("a WebSocket connection failed", error))
        .finally(() => {
          state.connections.delete(connection);
          stream.close(1000, "closed");
        });
    },
  });
  const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      state.draining = true;
      const closing = server.close();
      // Turns end `cancelled` and their answers go out before the sockets close.
      await services.sessions.cancelAll();
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const connection of state.connections) connection.stream.close(1001, "the server is shutting down");
      await services.sessions.releaseAll();
      await closing;
    })());

  return { url: `http://${host}:${server.port}`, port: server.port, state, shutdown };
}
