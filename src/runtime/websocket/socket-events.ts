/**
 * Hono WebSocket events that hand the application one `WebSocketLike` per
 * connection. Sending, closing, messages and close go through Hono's
 * `WSContext`; what Hono does not cover (buffered bytes, ping/pong) comes
 * from the runtime's own socket.
 * @module
 */
import type { WSContext, WSEvents } from "hono/ws";
import { log } from "../log.ts";
import type { WebSocketLike } from "./websocket-like.ts";

/** What a runtime's raw socket provides beyond Hono's `WSContext`. */
export interface RawSocketAccess {
  /** Sends a text frame through the runtime's socket directly (e.g. batched per tick); Hono's `send` otherwise. */
  send?(text: string): void;
  /** Closes through the runtime's socket (after the frames it still holds); Hono's `close` otherwise. */
  close?(code: number, reason: string): void;
  bufferedAmount(): number;
  ping(): void;
  onPong(listener: () => void): void;
  /** The runtime pings by itself and closes dead peers (the stream then sends no pings). */
  keepsAlive?: boolean;
}

/**
 * Events for a Hono upgrade helper; `onSocket` is called once the socket is
 * open, `onAbandoned` if it closes or fails before it ever opened.
 */
export function socketEvents(onSocket: (socket: WebSocketLike) => void, access: (ctx: WSContext) => RawSocketAccess, onAbandoned?: () => void): WSEvents {
  let message: ((data: string | Uint8Array, isBinary: boolean) => void) | undefined;
  let closed: ((code: number, reason: string) => void) | undefined;
  let settled = false; // opened, or ended before opening: whichever came first
  const endedUnopened = () => {
    if (settled) return;
    settled = true;
    onAbandoned?.();
  };
  return {
    onOpen(_event, ctx) {
      settled = true;
      const raw = access(ctx);
      onSocket({
        send: raw.send ? (text) => raw.send!(text) : (text) => ctx.send(text),
        bufferedAmount: () => raw.bufferedAmount(),
        close: raw.close ? (code, reason) => raw.close!(code, reason) : (code, reason) => ctx.close(code, reason),
        ping: () => raw.ping(),
        onMessage: (listener) => void (message = listener),
        onClose: (listener) => void (closed = listener),
        onPong: (listener) => raw.onPong(listener),
        ...(raw.keepsAlive ? { keepsAlive: true } : {}),
      });
    },
    onMessage(event) {
      const data = event.data;
      if (typeof data === "string") message?.(data, false);
      else if (data instanceof ArrayBuffer) message?.(new Uint8Array(data), true);
      else message?.(new Uint8Array(0), true);
    },
    onClose(event) {
      endedUnopened();
      closed?.(event.code, event.reason);
    },
    // A frame that breaks the protocol makes the runtime close that socket with the matching code (1007, 1002,
    // 1009) and report an error; 'close' follows. It costs that socket only.
    onError(event) {
      endedUnopened();
      log.debug("a WebSocket broke the protocol and was closed", (event as ErrorEvent).message ?? "");
    },
  };
}
