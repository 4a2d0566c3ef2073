/**
 * Listening for HTTP and WebSocket connections on the current runtime.
 * Node and Deno use node:http with @hono/node-server for requests and `ws`
 * for upgrades; Bun uses Bun.serve with its own WebSocket support. In every
 * case the application decides each upgrade from a standard `Request`, and a
 * refusal is sent as the full `Response` (status, headers such as
 * `WWW-Authenticate`, JSON body) — which the stock Hono WebSocket helpers
 * cannot do on Node (they drop headers and body) and get wrong on Bun (they
 * echo the first offered subprotocol, which may be the token).
 * @module
 */
import type { WebSocketLike } from "./websocket-like.ts";
import { runtimeName } from "./detect.ts";

/** The application's answer to an upgrade request. */
export type UpgradeDecision<T> = { accept: true; subprotocol: string; data: T } | { accept: false; response: Response };

export interface HttpServerOptions<T> {
  hostname: string;
  port: number;
  /** Ordinary HTTP requests. */
  fetch(request: Request): Response | Promise<Response>;
  /** Requests carrying `Upgrade: websocket`. */
  upgrade(request: Request): Promise<UpgradeDecision<T>>;
  /** An accepted WebSocket, with the data its decision carried. */
  onSocket(socket: WebSocketLike, data: T): void;
  /** Frames larger than this are refused by the runtime (close 1009). */
  maxPayload: number;
}

export interface HttpServer {
  /** The bound port (useful with port 0). */
  port: number;
  hostname: string;
  /** Stops accepting connections; existing ones are the caller's to close. */
  close(): Promise<void>;
}

export async function listenHttp<T>(options: HttpServerOptions<T>): Promise<HttpServer> {
  if (runtimeName === "bun") return (await import("./http-bun.ts")).listenBun(options);
  return (await import("./http-node.ts")).listenNode(options);
}

/** Whether a host name or address only reaches this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}
