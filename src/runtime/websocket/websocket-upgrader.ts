/**
 * The WebSocket pieces of one runtime, as the Hono app uses them: `accept`
 * completes an upgrade through that runtime's Hono WebSocket helper (selecting
 * the one subprotocol the application names when the client offers it, none
 * when it offers none, never whatever was offered first), `refuse` sends a
 * refusal with its status, headers and body, and `websocket`/`attach` are
 * what an embedder hands to its own server.
 * @module
 */
import type { Context } from "hono";
import { runtimeName } from "../host/detect.ts";
import type { WebSocketLike } from "./websocket-like.ts";

/**
 * Which server carries the app: Node's (node:http with @hono/node-server and `ws`; also on Deno through its
 * Node compatibility), `Bun.serve`, or `Deno.serve`.
 */
export type ServerKind = "node" | "bun" | "deno";

/** The server `agent serve` listens with: Bun's own on Bun; node:http elsewhere, Deno included, because there
 * `ws` enforces every frame rule and bound the serve contract promises (Deno's own WebSocket closes bad frames
 * without the RFC close codes and reports no buffered bytes). */
export function listenerKind(): ServerKind {
  return runtimeName === "bun" ? "bun" : "node";
}

/** The server an embedder most likely mounts the app in: the runtime's own. */
export function nativeKind(): ServerKind {
  return runtimeName;
}

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

/** The WebSocket upgrader for a kind of server. */
export async function createUpgrader(kind: ServerKind, options: UpgraderOptions): Promise<WebSocketUpgrader> {
  if (kind === "bun") return (await import("./websocket-bun.ts")).createBunUpgrader(options);
  if (kind === "deno") return (await import("./websocket-deno.ts")).createDenoUpgrader(options);
  return (await import("./websocket-node.ts")).createNodeUpgrader(options);
}
