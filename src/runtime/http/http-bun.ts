/**
 * Listening on Bun with `Bun.serve`: every request goes to the app's `fetch`
 * (with the server as `env`, which the upgrader needs), WebSockets to the
 * upgrader's handlers.
 * @module
 */
import type { HttpServer, HttpServerOptions } from "./http-types.ts";

interface BunServer {
  port: number;
  stop(closeActive?: boolean): void | Promise<void>;
}

/** Twice the ACP SDK's event-stream keep-alive interval (15 s). */
const IDLE_TIMEOUT_SECONDS = 30;

/** Listens on Bun. */
export function listenBun(options: HttpServerOptions): HttpServer {
  const bun = (globalThis as unknown as { Bun: { serve(options: Record<string, unknown>): BunServer } }).Bun;
  // Bun closes a connection that sends nothing for `idleTimeout` seconds (10 by default), event streams
  // included: the ACP SDK sends their keep-alive every 15 s, so the limit must be longer than that.
  const server = bun.serve({ hostname: options.hostname, port: options.port, idleTimeout: IDLE_TIMEOUT_SECONDS, fetch: options.fetch, websocket: options.websocket });
  return {
    port: server.port,
    hostname: options.hostname,
    close: async () => {
      await server.stop(false);
    },
  };
}
