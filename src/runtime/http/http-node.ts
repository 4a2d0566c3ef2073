/**
 * Listening on Node with `@hono/node-server`: requests and upgrades go to the
 * app's `fetch`; the upgrader's `ws` server completes accepted upgrades.
 * @module
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { WebSocketServer } from "ws";
import { log } from "../log.ts";
import type { HttpServer, HttpServerOptions } from "./http-types.ts";

/** Listens on Node; resolves once the port is bound. */
export async function listenNode(options: HttpServerOptions): Promise<HttpServer> {
  const server = createAdaptorServer({
    fetch: options.fetch,
    websocket: options.websocket as { server: WebSocketServer },
  }) as Server;
  options.attach(server);
  const sockets = new Set<Socket>();
  const upgraded = new WeakSet<object>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (_incoming, socket) => upgraded.add(socket));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Once listening, an error (a failed accept under EMFILE, say) costs at most that connection, never the server.
  server.on("error", (error) => log.warn("the HTTP server reported an error", error.message));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    port,
    hostname: options.hostname,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive HTTP sockets would hold close() open; upgraded ones are closed by the app.
        for (const socket of sockets) if (!upgraded.has(socket)) socket.destroy();
        setTimeout(resolve, 2000).unref?.();
      }),
  };
}
