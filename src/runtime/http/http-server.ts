/**
 * Listening for HTTP on the current runtime: a thin adapter per runtime that
 * hands every request — WebSocket upgrades included — to the application's
 * `fetch` (a Hono app), with the runtime's WebSocket pieces from
 * `websocket-upgrader.ts`. Nothing here decides anything about a request.
 * @module
 */
import type { ServerKind } from "../websocket/websocket-upgrader.ts";

/** The application's request handler; `env` is the runtime's (node bindings, Bun's server). */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

export interface HttpServerOptions {
  hostname: string;
  port: number;
  fetch: FetchHandler;
  /** The upgrader's piece for this runtime's server (see `WebSocketUpgrader.websocket`). */
  websocket: unknown;
  /** Called with the runtime's server object once it exists (see `WebSocketUpgrader.attach`). */
  attach(server: unknown): void;
}

export interface HttpServer {
  /** The bound port (useful with port 0). */
  port: number;
  hostname: string;
  /** Stops accepting connections; open WebSockets are the caller's to close. */
  close(): Promise<void>;
}

/** Listens with the given kind of server (see `listenerKind`). */
export async function listenHttp(kind: ServerKind, options: HttpServerOptions): Promise<HttpServer> {
  if (kind === "bun") return (await import("./http-bun.ts")).listenBun(options);
  if (kind === "deno") return (await import("./http-deno.ts")).listenDeno(options);
  return (await import("./http-node.ts")).listenNode(options);
}

/** Whether a host name or address only reaches this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}
