/**
 * WebSockets on Bun with `Bun.serve`. `hono/bun` cannot pass headers to
 * `server.upgrade`, so Bun would echo the first offered subprotocol (maybe a
 * bearer token entry); this small helper, built on Hono's
 * `defineWebSocketHelper`, answers with the application's subprotocol when
 * it is offered and with none when none is, and its `websocket` handlers
 * carry the bounds and pongs.
 * @module
 */
import { defineWebSocketHelper, WSContext, type WSEvents } from "hono/ws";
import { socketEvents } from "./socket-events.ts";
import { selectedSubprotocol, unsupportedSubprotocol } from "./websocket-offer.ts";
import type { UpgraderOptions, WebSocketUpgrader } from "./websocket-types.ts";

interface SocketData {
  events: WSEvents;
  context?: WSContext;
  pong?: () => void;
}
interface BunSocket {
  data: SocketData;
  cork(callback: () => void): void;
  readyState: 0 | 1 | 2 | 3;
  send(data: string | ArrayBuffer | Uint8Array): number;
  getBufferedAmount(): number;
  close(code?: number, reason?: string): void;
  ping(): void;
}
interface BunServer {
  upgrade(request: Request, options: { headers: Record<string, string>; data: SocketData }): boolean;
}

const contextOf = (ws: BunSocket): WSContext =>
  (ws.data.context ??= new WSContext({
    send: (source) => void ws.send(source),
    close: (code, reason) => ws.close(code, reason),
    raw: ws,
    get readyState() {
      return ws.readyState;
    },
  }));

/** Characters of frames held back in one tick before they are sent anyway. */
const FLUSH_CHARS = 64 * 1024;

/**
 * Frames sent within one tick leave together: queued, then sent in one corked
 * batch once the tick's work is done (a streamed turn sends many small frames
 * to every attached client). A close waits for the frames queued before it.
 */
function batchedBunSends(ws: BunSocket): { send(text: string): void; close(code: number, reason: string): void } {
  let queue: string[] = [];
  let queued = 0;
  const flush = () => {
    const frames = queue;
    queue = [];
    queued = 0;
    if (frames.length === 0 || ws.readyState !== 1) return;
    ws.cork(() => {
      for (const frame of frames) ws.send(frame);
    });
  };
  return {
    send(text) {
      if (queue.length === 0) setImmediate(flush);
      queue.push(text);
      queued += text.length;
      // Held back at most this much, so the buffered amount the caller watches stays close to the truth.
      if (queued >= FLUSH_CHARS) flush();
    },
    close(code, reason) {
      flush();
      ws.close(code, reason);
    },
  };
}

/** The Bun upgrader; its `websocket` goes to `Bun.serve({ fetch, websocket })`. */
export function createBunUpgrader(options: UpgraderOptions): WebSocketUpgrader {
  const upgradeWebSocket = defineWebSocketHelper<BunSocket>((c, events) => {
    // Bun passes the server as the second argument of `fetch`, which Hono exposes as `c.env`.
    const env = c.env as BunServer | { server?: BunServer } | undefined;
    const server = env && "upgrade" in env ? env : env?.server;
    if (!server) return new Response("WebSocket upgrade needs Bun.serve's server as the fetch env", { status: 500 });
    const selected = selectedSubprotocol(c.req.raw, options.subprotocol);
    // Offered only others: Bun, given no header, would echo the first of them.
    if (selected === false) return unsupportedSubprotocol(options.subprotocol);
    const data: SocketData = { events: events as WSEvents };
    if (server.upgrade(c.req.raw, { headers: selected ? { "Sec-WebSocket-Protocol": selected } : {}, data })) return new Response(null);
    return new Response("WebSocket upgrade failed", { status: 400 });
  });
  const websocket = {
    maxPayloadLength: options.maxPayload,
    // Backpressure is the application's business: it watches the buffered amount per client.
    backpressureLimit: 1024 * 1024 * 1024,
    closeOnBackpressureLimit: false,
    idleTimeout: 0,
    sendPings: false,
    perMessageDeflate: false,
    open(ws: BunSocket) {
      ws.data.events.onOpen?.(new Event("open"), contextOf(ws));
    },
    message(ws: BunSocket, message: string | Uint8Array) {
      const data = typeof message === "string" ? message : (message.buffer.slice(message.byteOffset, message.byteOffset + message.byteLength) as ArrayBuffer);
      ws.data.events.onMessage?.(new MessageEvent("message", { data }), contextOf(ws));
    },
    close(ws: BunSocket, code: number, reason: string) {
      ws.data.events.onClose?.(new CloseEvent("close", { code, reason }), contextOf(ws));
    },
    pong(ws: BunSocket) {
      ws.data.pong?.();
    },
  };
  return {
    websocket,
    attach: () => undefined,
    accept: (c, onSocket, onAbandoned) =>
      upgradeWebSocket(
        c,
        socketEvents(onSocket, (ctx) => {
          const ws = ctx.raw as BunSocket;
          const batch = batchedBunSends(ws);
          return {
            send: batch.send,
            close: batch.close,
            bufferedAmount: () => ws.getBufferedAmount(),
            ping: () => ws.ping(),
            onPong: (listener) => void (ws.data.pong = listener),
          };
        }, onAbandoned),
      ),
    refuse: (_c, response) => response,
  };
}
