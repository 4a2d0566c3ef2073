/**
 * Frames sent to one Node socket within one tick leave in one write: the
 * socket is corked at the first send of a tick and uncorked once the tick's
 * work is done (or earlier when much is held). A streamed turn sends many
 * small frames to every attached client; one system call per frame per
 * client made fan-out cost grow with the number of clients. A message sent
 * to several sockets in a row (one update, every client of a session) is
 * framed once, and the same bytes are written to each socket.
 *
 * Only public APIs: the socket is the one the upgrade request came on
 * (`IncomingMessage.socket`), and frames are written to it as they are sent,
 * so they keep their place among the frames `ws` writes itself (pongs, its
 * close frame, also one it sends on its own when the client closes). That
 * holds because `ws` writes each frame as it is sent whenever no extension
 * is negotiated (this server negotiates none) and no Blob is sent (this code
 * sends strings); with an extension, every send goes through `ws`.
 * @module
 */
import { Buffer } from "node:buffer";
import type { Duplex } from "node:stream";
import { setImmediate } from "node:timers";
import type { WebSocket } from "ws";

/** Bytes held back in one tick before they are handed to the network anyway. */
const FLUSH_BYTES = 64 * 1024;

/**
 * A whole unmasked text frame (RFC 6455 §5.2: FIN, opcode 1, then the
 * payload length in 7, 7+16 or 7+64 bits). A server's frames are never
 * masked, so one frame's bytes can go to every client as they are.
 */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text, "utf8");
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  // Encoded straight into the frame: no second copy of the payload.
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81;
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  frame.write(text, headerLength, "utf8");
  return frame;
}

/** The last text sent and its frame: fan-out sends the same string object to each client in turn. */
let lastText: string | undefined;
let lastFrame: Buffer | undefined;
function frameOf(text: string): Buffer {
  if (text !== lastText || !lastFrame) {
    lastFrame = textFrame(text);
    lastText = text;
  }
  return lastFrame;
}

/**
 * `send`, `close` and `bufferedAmount` for a `ws` socket, with sends batched
 * per tick; `socket` is the connection it was upgraded on.
 */
export function batchedSends(ws: WebSocket, socket: Duplex): { send(text: string): void; close(code: number, reason: string): void; bufferedAmount(): number } {
  let corked = false;
  let held = 0;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    held = 0;
    socket.uncork();
  };
  return {
    send(text) {
      // `ws`'s own path whenever it may frame differently (an extension such as permessage-deflate) or the socket is closing.
      if (socket.destroyed || ws.readyState !== ws.OPEN || ws.extensions !== "") return ws.send(text);
      if (!corked) {
        corked = true;
        socket.cork();
        setImmediate(uncork);
      }
      // The frame is the one `ws` would write, built once per message and shared by every socket it goes to.
      const frame = frameOf(text);
      socket.write(frame);
      held += frame.length;
      // Held back at most this much, so what reaches the client is not delayed behind a large batch.
      if (held >= FLUSH_BYTES) uncork();
    },
    // Its close frame goes after everything sent before it: those frames are in the socket already.
    close: (code, reason) => ws.close(code, reason),
    // Corked bytes count: the caller's limit on what a slow client may hold back sees them.
    bufferedAmount: () => ws.bufferedAmount,
  };
}
