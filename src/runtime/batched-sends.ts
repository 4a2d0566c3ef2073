/**
 * Frames sent to one Node socket within one tick leave in one write: they
 * are queued and written together, as one buffer, once the tick's work is
 * done (or earlier when much is held). A streamed turn sends many small
 * frames to every attached client; one system call per frame per client
 * made fan-out cost grow with the number of clients, and so did one
 * `socket.write` per frame per client even on a corked socket (about a
 * microsecond each in Node's stream machinery: a third of a 16-client
 * turn's server time). A message sent to several sockets in a row (one
 * update, every client of a session) is framed once, and the same bytes are
 * queued for each socket; a large one is written at once instead, so every
 * socket holds that one buffer rather than a copy inside its own batch.
 * @module
 */
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { setImmediate } from "node:timers";
import type { WebSocket } from "ws";

/** Bytes held back in one tick before they are handed to the socket anyway. */
const FLUSH_BYTES = 64 * 1024;
/** A frame this large is written as it is: one buffer shared by every client it goes to, never copied into a batch. */
const LARGE_FRAME_BYTES = 16 * 1024;

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

/** `send`, `close` and `bufferedAmount` for a `ws` socket, with sends batched per tick. */
export function batchedSends(ws: WebSocket): { send(text: string): void; close(code: number, reason: string): void; bufferedAmount(): number } {
  // `ws` keeps its net.Socket here; without it (another implementation) frames go out one by one.
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  let queue: Buffer[] = [];
  let queued = 0;
  const flush = () => {
    if (queue.length === 0) return;
    const frames = queue;
    const bytes = queued;
    queue = [];
    queued = 0;
    // Nothing after a close frame: a socket already closing or gone (terminated, reset) gets none.
    if (!socket || socket.destroyed || ws.readyState !== ws.OPEN) return;
    socket.write(frames.length === 1 ? frames[0]! : Buffer.concat(frames, bytes));
  };
  // `ws` also closes by itself (the client's close frame, a protocol error): what this tick queued goes first,
  // as it did when the frames sat in a corked socket ahead of the close frame.
  const closeNow = ws.close.bind(ws);
  ws.close = ((code?: number, reason?: string | Buffer) => {
    flush();
    closeNow(code, reason);
  }) as typeof ws.close;
  return {
    send(text) {
      // `ws`'s own path whenever it may hold a frame back (its sender busy compressing or reading a blob, or
      // frames queued behind that) or frame differently (an extension such as permessage-deflate); what this
      // tick queued goes first.
      const sender = (ws as unknown as { _sender?: { _state?: number; _queue?: unknown[] } })._sender;
      const senderIdle = sender !== undefined && sender._state === 0 && sender._queue?.length === 0;
      if (!socket || socket.destroyed || ws.readyState !== ws.OPEN || ws.extensions !== "" || !senderIdle) {
        flush();
        return ws.send(text);
      }
      // The frame is the one `ws` would write, built once per message.
      const frame = frameOf(text);
      if (frame.length >= LARGE_FRAME_BYTES) {
        flush();
        socket.write(frame);
        return;
      }
      if (queue.length === 0) setImmediate(flush);
      queue.push(frame);
      queued += frame.length;
      // Held back at most this much, so the buffered amount the caller watches stays close to the truth.
      if (queued >= FLUSH_BYTES) flush();
    },
    close(code, reason) {
      // After the frames queued before it (see the wrapped ws.close above).
      ws.close(code, reason);
    },
    // Queued frames are held on purpose, not a sign of a slow reader: only what reached the socket counts.
    bufferedAmount: () => ws.bufferedAmount,
  };
}
