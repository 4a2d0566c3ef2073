/**
 * The WebSocket pieces of one runtime, as the Hono app uses them: `accept`
 * completes an upgrade through that runtime's Hono WebSocket helper (selecting
 * the one subprotocol the application names when the client offers it, none
 * when it offers none, never whatever was offered first), `refuse` sends a
 * refusal with its status, headers and body, and `websocket`/`attach` are
 * what an embedder hands to its own server.
 * @module
 */
import { runtimeName } from "../host/detect.ts";
import type { ServerKind, UpgraderOptions, WebSocketUpgrader } from "./websocket-types.ts";

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

/** The WebSocket upgrader for a kind of server. */
export async function createUpgrader(kind: ServerKind, options: UpgraderOptions): Promise<WebSocketUpgrader> {
  if (kind === "bun") return (await import("./websocket-bun.ts")).createBunUpgrader(options);
  if (kind === "deno") return (await import("./websocket-deno.ts")).createDenoUpgrader(options);
  return (await import("./websocket-node.ts")).createNodeUpgrader(options);
}
