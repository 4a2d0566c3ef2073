/**
 * Listening on Bun with `Bun.serve`: every request goes to the app's `fetch`
 * (with the server as `env`, which the upgrader needs), WebSockets to the
 * upgrader's handlers.
 * @module
 */
import type { HttpServer, HttpServerOptions } from "./http-server.ts";

interface BunServer {
  port: number;
  stop(closeActive?: boolean): void | Promise<void>;
}

/** Listens on Bun. */
export function listenBun(options: HttpServerOptions): HttpServer {
  const bun = (globalThis as unknown as { Bun: { serve(options: Record<string, unknown>): BunServer } }).Bun;
  const server = bun.serve({ hostname: options.hostname, port: options.port, fetch: options.fetch, websocket: options.websocket });
  return {
    port: server.port,
    hostname: options.hostname,
    close: async () => {
      await server.stop(false);
    },
  };
}
