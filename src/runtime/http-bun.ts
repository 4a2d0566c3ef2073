/**
 * HTTP and WebSocket serving on Bun with `Bun.serve`. The upgrade always
 * answers with the subprotocol the application chose (Bun would otherwise
 * echo the first one offered — possibly a bearer token).
 * @module
 */
import type { WebSocketLike } from "./websocket-like.ts";
import type { HttpServer, HttpServerOptions } from "./http-server.ts";

interface BunSocket<T> {
  data: { payload: T; listeners: Listeners };
  send(data: string): number;
  getBufferedAmount(): number;
  close(code?: number, reason?: string): void;
  ping(): void;
}
interface Listeners {
  message?: (data: string | Uint8Array, isBinary: boolean) => void;
  close?: (code: number, reason: string) => void;
  pong?: () => void;
}
interface BunServer {
  port: number;
  upgrade(request: Request, options: { headers: Record<string, string>; data: unknown }): boolean;
  stop(closeActive?: boolean): void | Promise<void>;
}
interface BunGlobal {
  serve(options: Record<string, unknown>): BunServer;
}

function wrap<T>(ws: BunSocket<T>): WebSocketLike {
  const listeners = ws.data.listeners;
  return {
    send: (text) => void ws.send(text),
    bufferedAmount: () => ws.getBufferedAmount(),
    close: (code, reason) => ws.close(code, reason),
    ping: () => ws.ping(),
    onMessage: (listener) => void (listeners.message = listener),
    onClose: (listener) => void (listeners.close = listener),
    onPong: (listener) => void (listeners.pong = listener),
  };
}

export function listenBun<T>(options: HttpServerOptions<T>): HttpServer {
  const bun = (globalThis as unknown as { Bun: BunGlobal }).Bun;
  const server = bun.serve({
    hostname: options.hostname,
    port: options.port,
    async fetch(request: Request, srv: BunServer) {
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return await options.fetch(request);
      const decision = await options.upgrade(request);
      if (!decision.accept) return decision.response;
      const data = { payload: decision.data, listeners: {} as Listeners };
      if (srv.upgrade(request, { headers: { "Sec-WebSocket-Protocol": decision.subprotocol }, data })) return undefined;
      return new Response("WebSocket upgrade failed", { status: 400 });
    },
    websocket: {
      maxPayloadLength: options.maxPayload,
      // Backpressure is the application's business: it watches the buffered amount per client.
      backpressureLimit: 1024 * 1024 * 1024,
      closeOnBackpressureLimit: false,
      idleTimeout: 0,
      sendPings: false,
      perMessageDeflate: false,
      open(ws: BunSocket<T>) {
        options.onSocket(wrap(ws), ws.data.payload);
      },
      message(ws: BunSocket<T>, message: string | Uint8Array) {
        ws.data.listeners.message?.(message, typeof message !== "string");
      },
      close(ws: BunSocket<T>, code: number, reason: string) {
        ws.data.listeners.close?.(code, reason);
      },
      pong(ws: BunSocket<T>) {
        ws.data.listeners.pong?.();
      },
    },
  });
  return {
    port: server.port,
    hostname: options.hostname,
    close: async () => {
      await server.stop(false);
    },
  };
}
