/**
 * What a runtime's WebSocket support is, whatever the runtime: the kinds of
 * server, how an upgrader is built and what it offers. Its own module so that
 * the dispatcher (`websocket-upgrader.ts`) and each runtime's adapter share
 * it without importing one another.
 * @module
 */
import type { Context } from "hono";
import type { WebSocketLike } from "./websocket-like.ts";

/**
 * Which server carries the app: Node's (node:http with @hono/node-server and `ws`; also on Deno through its
 * Node compatibility), `Bun.serve`, or `Deno.serve`.
 */
export type ServerKind = "node" | "bun" | "deno";

/** How an upgrader is built: the subprotocol it selects and the bounds the runtime enforces. */
export interface UpgraderOptions {
  subprotocol: string;
  /** Larger messages close the socket with 1009. */
  maxPayload: number;
  /** Keepalive interval, for runtimes that ping by themselves (Deno); 0 disables it. */
  pingIntervalMs: number;
}

/** One runtime's WebSocket support for the app. */
export interface WebSocketUpgrader {
  /**
   * Completes the upgrade of this request; `onSocket` receives the open socket.
   * `onAbandoned` runs when the runtime reports the upgrade ending before its
   * socket opened (a client gone mid-handshake); not every runtime reports that.
   */
  accept(c: Context, onSocket: (socket: WebSocketLike) => void, onAbandoned?: () => void): Promise<Response>;
  /** What to return for a refused upgrade so the client sees this exact response. */
  refuse(c: Context, response: Response): Response;
  /** Node: `{ server }` for `serve({ websocket })`; Bun: the `websocket` handlers of `Bun.serve`; Deno: undefined. */
  websocket: unknown;
  /** Node: hooks a server made by `@hono/node-server` so refusals keep their bodies; elsewhere a no-op. */
  attach(server: unknown): void;
}
