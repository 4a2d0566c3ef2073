/**
 * Running the sidecar: the embeddable app (`createEdgeApp`) on the runtime's
 * own listener, and a graceful shutdown — not ready, no new connections,
 * running turns cancelled (and answered), journals flushed, sockets closed
 * with 1001.
 * @module
 */
import type { AgentServices } from "../sessions/services.ts";
import { isLoopback, listenHttp } from "../runtime/http/http-server.ts";
import { listenerKind } from "../runtime/websocket/websocket-upgrader.ts";
import { createEdgeApp } from "./edge-app.ts";
import type { ServeLimits } from "./limits.ts";
import type { ServerState } from "./server-state.ts";

/** Where and how `startServer` listens. */
export interface ServeOptions {
  hostname: string;
  port: number;
  token: string;
  limits: ServeLimits;
  /** Web origins allowed besides the server's own (see `EdgeAppOptions.allowedOrigins`). */
  allowedOrigins?: string[];
}

export interface RunningServer {
  url: string;
  port: number;
  state: ServerState;
  /** Graceful shutdown; resolves when everything is closed. */
  shutdown(): Promise<void>;
}

/** Listens for HTTP and WebSocket clients on the current runtime with the embeddable app. */
export async function startServer(services: AgentServices, options: ServeOptions): Promise<RunningServer> {
  const kind = listenerKind();
  // Bound to a loopback address, only loopback names are answered (DNS rebinding); elsewhere any name is.
  const edge = await createEdgeApp(services, {
    token: options.token,
    limits: options.limits,
    server: kind,
    hosts: isLoopback(options.hostname) ? "loopback" : "any",
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  const server = await listenHttp(kind, { hostname: options.hostname, port: options.port, fetch: edge.fetch, websocket: edge.websocket, attach: edge.attach });
  const host = options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname;
  let stopping: Promise<void> | undefined;
  const shutdown = () =>
    (stopping ??= (async () => {
      const closing = server.close();
      await edge.shutdown();
      await closing;
    })());
  return { url: `http://${host}:${server.port}`, port: server.port, state: edge.state, shutdown };
}
