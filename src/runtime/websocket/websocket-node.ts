/**
 * WebSockets on Node: `@hono/node-server`'s `upgradeWebSocket` over our own
 * `ws` server, created with the bounds (`maxPayload`, no compression) and a
 * `handleProtocols` that only ever selects the application's subprotocol
 * (`ws` selects none for a client that offers none).
 * Sends and closes go through `ws`'s public API (node-ws-sends.ts).
 *
 * A refusal is written here, whole, on the upgrading socket: node-server by
 * itself sends only status and headers (it has no documented way to send a
 * body), and it leaves a refused socket to the server's other `upgrade`
 * listeners when there are any — its code does so, its documentation does
 * not say it. `attach` adds that listener: it answers every upgrade
 * node-server refuses, with the refusal the handshake recorded for that
 * request, and every upgrade that is not a WebSocket's (node-server passes
 * those over), so none hangs. Should node-server change that, the refusals'
 * bodies would be lost, and the serve handshake tests, which read each
 * refusal's body on Node, fail.
 * @module
 */
import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { upgradeWebSocket } from "@hono/node-server";
import type { Context } from "hono";
import { WebSocketServer, type WebSocket } from "ws";
import { nodeWsSends } from "./node-ws-sends.ts";
import { socketEvents } from "./socket-events.ts";
import type { UpgraderOptions, WebSocketUpgrader } from "./websocket-types.ts";

/** Writes a complete HTTP response on a socket that asked to upgrade, then closes it. */
async function writeRefusal(socket: Duplex, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  if (socket.destroyed) return;
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`];
  response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
  lines.push(`Content-Length: ${body.length}`, "Connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}

/** Per upgrade request: its socket (from the `upgrade` event) and its refusal (from the handshake), whichever comes first waits for the other. */
function refusalWriter() {
  const pending = new WeakMap<IncomingMessage, { socket?: Duplex; response?: Response }>();
  const meet = (request: IncomingMessage, part: { socket?: Duplex; response?: Response }) => {
    const entry = { ...pending.get(request), ...part };
    if (!entry.socket || !entry.response) return void pending.set(request, entry);
    pending.delete(request);
    const socket = entry.socket;
    void writeRefusal(socket, entry.response).catch(() => socket.destroy());
  };
  return {
    upgrading(request: IncomingMessage, socket: Duplex) {
      if (request.headers.upgrade?.toLowerCase() !== "websocket") {
        meet(request, { response: new Response("only WebSocket upgrades are served here\n", { status: 400 }) });
      }
      meet(request, { socket });
    },
    refused: (request: IncomingMessage, response: Response) => meet(request, { response }),
  };
}

/** The request node-server serves, from its documented bindings (`c.env.incoming`). */
function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
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
  const refusals = refusalWriter();
  /** Requests that came through the server's `upgrade` event: their sockets serve nothing else. */
  const upgrading = new WeakSet<IncomingMessage>();
  let hooked = false;
  return {
    websocket: { server: wss },
    attach(server) {
      if (attached.has(server as object)) return;
      attached.add(server as object);
      hooked = true;
      (server as Server).on("upgrade", (request: IncomingMessage, socket: Duplex) => {
        upgrading.add(request);
        refusals.upgrading(request, socket);
      });
    },
    accept: (c, onSocket, onAbandoned) => {
      // The connection the upgrade came on: `ws` writes to it, and the sends cork it per tick (see node-ws-sends.ts).
      const incoming = incomingOf(c);
      const socket = incoming?.socket;
      // node-server says nothing of an upgrade whose connection ends before its socket opens (the client gone, or
      // `ws` refusing the handshake); the connection's close does. After an open it changes nothing (released then).
      // Only for upgrade requests: a keep-alive connection's requests would pile up listeners.
      if (onAbandoned && socket && incoming && upgrading.has(incoming)) {
        if (socket.destroyed) onAbandoned();
        else socket.once("close", onAbandoned);
      }
      return upgradeWebSocket(
        c,
        socketEvents(onSocket, (ctx) => {
          const ws = ctx.raw as WebSocket;
          return { ...nodeWsSends(ws, socket), ping: () => ws.ping(), onPong: (listener) => ws.on("pong", listener) };
        }, onAbandoned),
      );
    },
    refuse(c: Context, response: Response) {
      const incoming = incomingOf(c);
      // Without attach, node-server answers with status and headers alone; writing too would garble that.
      if (incoming && hooked) refusals.refused(incoming, response.clone());
      return response;
    },
  };
}
