/**
 * WebSockets on Node: `@hono/node-server`'s `upgradeWebSocket` over our own
 * `ws` server, created with the bounds (`maxPayload`, no compression) and a
 * `handleProtocols` that only ever selects the application's subprotocol.
 *
 * A refusal is written here, whole, on the upgrading socket: node-server by
 * itself sends only status and headers. It leaves the socket to us when a
 * second `upgrade` listener exists, which `attach` adds.
 * @module
 */
import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { upgradeWebSocket } from "@hono/node-server";
import type { Context } from "hono";
import { WebSocketServer, type WebSocket } from "ws";
import { batchedSends } from "./batched-sends.ts";
import { socketEvents } from "./socket-events.ts";
import type { UpgraderOptions, WebSocketUpgrader } from "./websocket-upgrader.ts";

/** Writes a complete HTTP response on a socket that asked to upgrade, then closes it. */
async function writeRefusal(socket: Duplex, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  if (socket.destroyed) return;
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`];
  response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
  lines.push(`Content-Length: ${body.length}`, "Connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}

/** The Node upgrader (also usable on Deno through its node:http compatibility). */
export function createNodeUpgrader(options: UpgraderOptions): WebSocketUpgrader {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayload,
    perMessageDeflate: false,
    handleProtocols: (offered) => (offered.has(options.subprotocol) ? options.subprotocol : false),
  });
  const attached = new WeakSet<object>();
  let hooked = false;
  return {
    websocket: { server: wss },
    attach(server) {
      if (attached.has(server as object)) return;
      attached.add(server as object);
      hooked = true;
      // Its presence is what tells node-server that refusals are written by someone else (see refuse).
      (server as Server).on("upgrade", () => undefined);
    },
    accept: (c, onSocket) =>
      upgradeWebSocket(
        c,
        socketEvents(onSocket, (ctx) => {
          const ws = ctx.raw as WebSocket;
          return { ...batchedSends(ws), ping: () => ws.ping(), onPong: (listener) => ws.on("pong", listener) };
        }),
      ),
    refuse(c: Context, response: Response) {
      const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
      // Without attach, node-server answers with status and headers alone; writing too would garble that.
      if (socket && hooked) void writeRefusal(socket, response.clone()).catch(() => socket.destroy());
      return response;
    },
  };
}
