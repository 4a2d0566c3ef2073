/**
 * HTTP and WebSocket serving on Node (and Deno, through its node:http
 * compatibility): @hono/node-server turns requests into `Request`s, and
 * upgrades are decided by the application before `ws` completes them.
 * @module
 */
import { createServer, STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import { WebSocketServer, type WebSocket } from "ws";
import { log } from "./log.ts";
import type { WebSocketLike } from "./websocket-like.ts";
import type { HttpServer, HttpServerOptions } from "./http-server.ts";

function toRequest(incoming: IncomingMessage, hostname: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? hostname}`), { headers });
}

async function writeResponse(socket: Duplex, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`];
  response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
  lines.push(`Content-Length: ${body.length}`, "Connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}

function wrap(ws: WebSocket): WebSocketLike {
  // A frame that breaks the protocol (invalid UTF-8, a reserved close code, a message over maxPayload) makes
  // ws close this socket with the matching code (1007, 1002, 1009) and then emit 'error'; 'close' follows.
  // Unheard, that 'error' would end the process and every other connection with it.
  ws.on("error", (error) => log.debug("a WebSocket broke the protocol and was closed", error.message));
  return {
    send: (text) => ws.send(text),
    bufferedAmount: () => ws.bufferedAmount,
    close: (code, reason) => ws.close(code, reason),
    ping: () => ws.ping(),
    onMessage: (listener) => ws.on("message", (data, isBinary) => listener(isBinary ? new Uint8Array(data as Buffer) : data.toString("utf8"), isBinary)),
    onClose: (listener) => ws.on("close", (code, reason) => listener(code, reason.toString("utf8"))),
    onPong: (listener) => ws.on("pong", listener),
  };
}

export async function listenNode<T>(options: HttpServerOptions<T>): Promise<HttpServer> {
  const server = createServer(getRequestListener(options.fetch));
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, perMessageDeflate: false });
  const sockets = new Set<Duplex>();
  const upgraded = new WeakSet<Duplex>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.on("error", () => socket.destroy());
    void (async () => {
      const decision = await options.upgrade(toRequest(incoming, options.hostname));
      if (!decision.accept) return await writeResponse(socket, decision.response);
      // The selected subprotocol is always the application's choice, never whatever came first.
      wss.options.handleProtocols = () => decision.subprotocol;
      wss.handleUpgrade(incoming, socket, head, (ws) => options.onSocket(wrap(ws), decision.data));
    })().catch(() => socket.destroy());
  });
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
