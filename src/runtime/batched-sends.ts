/**
 * Frames sent to one Node socket within one tick leave in one write: the
 * socket is corked at the first send and uncorked once the tick's work is
 * done (or earlier when much is held). A streamed turn sends many small
 * frames to every attached client; one system call per frame per client is
 * what made fan-out cost grow with the number of clients.
 * @module
 */
import type { Socket } from "node:net";
import { setImmediate } from "node:timers";
import type { WebSocket } from "ws";

/** Bytes held back in one tick before they are handed to the socket anyway. */
const FLUSH_BYTES = 64 * 1024;

/** `send` and `bufferedAmount` for a `ws` socket, with sends batched per tick. */
export function batchedSends(ws: WebSocket): { send(text: string): void; bufferedAmount(): number } {
  // `ws` keeps its net.Socket here; without it (another implementation) frames go out one by one.
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  /** Bytes queued by this tick's sends: held back on purpose, so not a sign of a slow reader. */
  let held = 0;
  let corked = false;
  const flush = () => {
    if (!corked) return;
    corked = false;
    held = 0;
    socket?.uncork();
  };
  return {
    send(text) {
      if (!socket || socket.destroyed || ws.readyState !== ws.OPEN) return ws.send(text);
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(flush);
      }
      const before = ws.bufferedAmount;
      ws.send(text);
      held += ws.bufferedAmount - before;
      if (held >= FLUSH_BYTES) {
        flush();
      }
    },
    bufferedAmount: () => Math.max(0, ws.bufferedAmount - held),
  };
}
