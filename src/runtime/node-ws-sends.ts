/**
 * Sending on a Node `ws` socket through its public API only: every message
 * with `ws.send`, every close with `ws.close`, so their order among
 * themselves and among the frames `ws` sends on its own (pongs, the close it
 * answers a client's close with) is `ws`'s, and nothing goes out after a
 * close (`ws` drops a send once the socket is closing).
 *
 * A message sent to several sockets in a row (an update fanned out to every
 * client of a session) is encoded to UTF-8 once and the same Buffer goes to
 * each socket as a text frame (`{ binary: false }`): for a server's frames,
 * which are never masked, `ws` writes the frame header and then that Buffer
 * as it is, so the clients' write queues hold one copy of a large update,
 * not one each. A string would be encoded again for every socket.
 * @module
 */
import { Buffer } from "node:buffer";
import type { WebSocket } from "ws";

/** The last text sent and its bytes: a fan-out sends the same string to each client in turn. */
let lastText: string | undefined;
let lastBytes: Buffer | undefined;

/** `text` as UTF-8, the same Buffer as for the previous send when the text is the same. */
export function sharedBytes(text: string): Buffer {
  if (text !== lastText || lastBytes === undefined) {
    lastBytes = Buffer.from(text, "utf8");
    lastText = text;
  }
  return lastBytes;
}

/** `send`, `close` and `bufferedAmount` for a `ws` socket. */
export function nodeWsSends(ws: WebSocket): { send(text: string): void; close(code: number, reason: string): void; bufferedAmount(): number } {
  return {
    send: (text) => ws.send(sharedBytes(text), { binary: false }),
    close: (code, reason) => ws.close(code, reason),
    // Counts what the socket holds and what `ws` still queues: the caller's limit on a slow client sees both.
    bufferedAmount: () => ws.bufferedAmount,
  };
}
