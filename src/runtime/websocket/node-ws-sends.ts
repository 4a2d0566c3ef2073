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
 *
 * The connection's socket (the upgrade request's, which `ws` writes to) is
 * corked from the first send of a tick until the tick's work is done, with
 * Node's public `cork`/`uncork`: `ws` still writes every frame itself, in its
 * own order, but a streamed turn's many small frames leave in one system call
 * per tick instead of one each (16 clients of a fast turn: about 4× the
 * server's CPU without it). Closing the socket flushes what is corked.
 * @module
 */
import { Buffer } from "node:buffer";
import type { Duplex } from "node:stream";
import { setImmediate } from "node:timers";
import type { WebSocket } from "ws";

/** Bytes held back in one tick before they are handed to the network anyway. */
const FLUSH_BYTES = 64 * 1024;

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

/** Corks `socket` until the current tick's work is done; uncorks at once when much is held. */
function tickCork(socket: Duplex): () => void {
  let corked = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    socket.uncork();
  };
  return () => {
    if (socket.destroyed) return;
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(uncork);
    } else if (socket.writableLength >= FLUSH_BYTES) {
      // Held back at most this much, so what reaches the client is not delayed behind a large batch.
      uncork();
    }
  };
}

/**
 * `send`, `close` and `bufferedAmount` for a `ws` socket; `socket`, when
 * known, is the connection it was upgraded on (corked per tick).
 */
export function nodeWsSends(ws: WebSocket, socket?: Duplex): { send(text: string): void; close(code: number, reason: string): void; bufferedAmount(): number } {
  const cork = socket ? tickCork(socket) : () => undefined;
  return {
    send: (text) => {
      cork();
      ws.send(sharedBytes(text), { binary: false });
    },
    close: (code, reason) => ws.close(code, reason),
    // Counts what the socket holds and what `ws` still queues: the caller's limit on a slow client sees both.
    bufferedAmount: () => ws.bufferedAmount,
  };
}
