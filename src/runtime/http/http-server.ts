/**
 * Listening for HTTP on the current runtime: a thin adapter per runtime that
 * hands every request — WebSocket upgrades included — to the application's
 * `fetch` (a Hono app), with the runtime's WebSocket pieces from
 * `websocket-upgrader.ts`. Nothing here decides anything about a request.
 * @module
 */
import type { ServerKind } from "../websocket/websocket-types.ts";
import type { HttpServer, HttpServerOptions } from "./http-types.ts";

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
