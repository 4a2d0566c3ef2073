/**
 * The embeddable server: the Hono app with its own state, the runtime's
 * WebSocket pieces, and a graceful shutdown. `agent serve` uses it with the
 * runtime's listener; an embedder mounts it in its own server:
 * Node `serve({ fetch, websocket })` then `attach(server)`; Bun
 * `Bun.serve({ fetch, websocket })`; Deno `Deno.serve(fetch)` (or, with
 * `server: "node"`, node:http as on Node).
 * @module
 */
import type { Hono } from "hono";
import { checkApiToken } from "../config/api-token.ts";
import { createHttpTransport } from "../acp/http/http-transport.ts";
import type { AgentServices } from "../sessions/services.ts";
import { createUpgrader, nativeKind } from "../runtime/websocket/websocket-upgrader.ts";
import type { ServerKind } from "../runtime/websocket/websocket-types.ts";
import { createServerApp } from "./app.ts";
import { SUBPROTOCOL } from "./bearer.ts";
import type { HandshakeVariables } from "./handshake.ts";
import type { ServeLimits } from "./limits.ts";
import { requestSourcePolicy } from "./request-source.ts";
import { ServerState } from "./server-state.ts";

/** What `createEdgeApp` needs besides the services. */
export interface EdgeAppOptions {
  /** The bearer token every client must present. */
  token: string;
  limits: ServeLimits;
  /** The server the app will run in; the runtime's own by default (`Bun.serve`, `Deno.serve`, node:http). */
  server?: ServerKind;
  /**
   * `"loopback"` (the default): requests must be addressed to `localhost`, `127.x.x.x` or `[::1]` (any port), which
   * defeats DNS rebinding; `"any"` for a server reachable under other names (behind a proxy, `--allow-remote`).
   */
  hosts?: "loopback" | "any";
  /** Web origins allowed besides the server's own (`http://localhost:3000`), added to settings' `serve.allowedOrigins`. */
  allowedOrigins?: string[];
}

/** Everything an embedder needs to serve acp-edge from its own server. */
export interface EdgeApp {
  app: Hono<{ Variables: HandshakeVariables }>;
  /** The app's fetch, bound: give it to the runtime's server. */
  fetch: (request: Request, env?: unknown) => Response | Promise<Response>;
  /** Node: pass as `serve({ websocket })`; Bun: as `Bun.serve({ websocket })`; Deno: not needed. Its type is the
   * runtime's own, hence untyped here. */
  // deno-lint-ignore no-explicit-any
  websocket: any;
  /** Node: call with the server `serve()` returned, so refused upgrades keep their bodies. Elsewhere a no-op. */
  attach(server: unknown): void;
  state: ServerState;
  /** Not ready, no new connections, turns cancelled and answered, journals flushed, sockets closed (1001). */
  shutdown(): Promise<void>;
}

/** Builds the app and its state for this runtime. */
export async function createEdgeApp(services: AgentServices, options: EdgeAppOptions): Promise<EdgeApp> {
  // Fail closed on a missing or weak token; a valid one is registered as a secret so it is never echoed.
  const token = checkApiToken(options.token, "createApp token");
  const { limits } = options;
  const state = new ServerState();
  const upgrader = await createUpgrader(options.server ?? nativeKind(), { subprotocol: SUBPROTOCOL, maxPayload: limits.maxMessageBytes, pingIntervalMs: limits.pingIntervalMs });
  const source = requestSourcePolicy((options.hosts ?? "loopback") === "loopback", [...(services.config.settings.serve?.allowedOrigins ?? []), ...(options.allowedOrigins ?? [])]);
  const http = createHttpTransport(services, { maxBufferedBytes: limits.maxBufferedBytes, idleTimeoutMs: limits.httpIdleTimeoutMs });
  state.http = http;
  // However a session is deleted (ACP `session/delete` or REST), its `/apc` clients are closed with 1001.
  const unwatch = services.sessions.watchDeletions((id, reason) => state.closeSessionClients(id, reason));
  const app = createServerApp({ services, token, limits, state, upgrader, http, source });

  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      state.draining = true;
      unwatch();
      // Turns end `cancelled` and their answers go out before the connections close.
      await services.sessions.cancelAll();
      await Promise.all([...state.connections].map((connection) => connection.answered()));
      for (const connection of state.connections) connection.stream.close(1001, "the server is shutting down");
      await http.close();
      await services.sessions.releaseAll();
    })());

  return { app, fetch: (request, env) => app.fetch(request, env), websocket: upgrader.websocket, attach: (server) => upgrader.attach(server), state, shutdown };
}
