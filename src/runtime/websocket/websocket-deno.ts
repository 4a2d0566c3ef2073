/**
 * WebSockets on Deno with `Deno.serve`: a small helper on Hono's
 * `defineWebSocketHelper` around `Deno.upgradeWebSocket` (the `hono/deno`
 * export is deprecated). The subprotocol is the application's when the
 * client offers it, none when it offers none, never the first one offered; Deno pings by itself (`idleTimeout`) and has no
 * message-size option, so the stream checks sizes as messages arrive.
 * @module
 */
import { defineWebSocketHelper, WSContext } from "hono/ws";
import { socketEvents } from "./socket-events.ts";
import { selectedSubprotocol, unsupportedSubprotocol } from "./websocket-offer.ts";
import type { UpgraderOptions, WebSocketUpgrader } from "./websocket-types.ts";

interface DenoUpgrade {
  upgradeWebSocket(request: Request, options: { idleTimeout?: number }): { response: Response; socket: WebSocket };
}

/** The Deno upgrader; with it the app's `fetch` goes to `Deno.serve` as is. */
export function createDenoUpgrader(options: UpgraderOptions): WebSocketUpgrader {
  const deno = (globalThis as unknown as { Deno: DenoUpgrade }).Deno;
  const idleTimeout = Math.max(1, Math.round(options.pingIntervalMs / 1000));
  const upgradeWebSocket = defineWebSocketHelper<WebSocket>((c, events) => {
    // Deno's own `protocol` option splits the offered list on ", " only, and refuses "a,b" (as `ws` sends it),
    // so the offer is read here and the header set on the response.
    const selected = selectedSubprotocol(c.req.raw, options.subprotocol);
    if (selected === false) return unsupportedSubprotocol(options.subprotocol);
    const { response, socket } = deno.upgradeWebSocket(c.req.raw, options.pingIntervalMs > 0 ? { idleTimeout } : {});
    if (selected) response.headers.set("sec-websocket-protocol", selected);
    socket.binaryType = "arraybuffer";
    const ctx = new WSContext<WebSocket>({
      send: (source) => socket.send(source),
      close: (code, reason) => socket.close(code, reason),
      raw: socket,
      get readyState() {
        return socket.readyState as 0 | 1 | 2 | 3;
      },
    });
    socket.onopen = (event) => events.onOpen?.(event, ctx);
    socket.onmessage = (event) => events.onMessage?.(event, ctx);
    socket.onclose = (event) => events.onClose?.(event, ctx);
    socket.onerror = (event) => events.onError?.(event, ctx);
    return response;
  });
  return {
    websocket: undefined,
    attach: () => undefined,
    accept: (c, onSocket, onAbandoned) =>
      upgradeWebSocket(
        c,
        socketEvents(onSocket, (ctx) => {
          const ws = ctx.raw as WebSocket;
          return { bufferedAmount: () => ws.bufferedAmount, ping: () => undefined, onPong: () => undefined, keepsAlive: true };
        }, onAbandoned),
      ),
    refuse: (_c, response) => response,
  };
}
