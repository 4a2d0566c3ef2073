/**
 * A WebSocket as a stream of JSON-RPC messages, with every bound the serve
 * contract promises: text frames only (binary → close 1003), at most
 * `maxMessageBytes` per message (close 1009), invalid JSON answered with
 * -32700 while the connection goes on, a per-client outbound buffer cap (a
 * client that stops reading is closed alone, 1008), and a ping keepalive (a
 * missed pong closes the connection, 1001).
 * @module
 */
import { classifyMessage, type JsonRpcObject } from "./json-message.ts";
import { CLOSE, type WebSocketLike } from "../runtime/websocket/websocket-like.ts";

export interface WebSocketLimits {
  maxMessageBytes: number;
  /** Outbound bytes a client may leave unread before it is disconnected. */
  maxBufferedBytes: number;
  /** 0 disables keepalive pings. */
  pingIntervalMs: number;
}

export interface WebSocketStream {
  readable: ReadableStream<JsonRpcObject>;
  writable: WritableStream<JsonRpcObject>;
  /** Settles when the socket has closed, with its close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  /** Closes the socket (e.g. on shutdown). */
  close(code: number, reason: string): void;
  /** Sends one message already serialised, after everything `writable` has passed on; throws when the socket is gone. */
  sendSerialised(text: string): void;
}

const encoder = new TextEncoder();

export function createWebSocketStream(ws: WebSocketLike, limits: WebSocketLimits): WebSocketStream {
  let open = true;
  let settle!: (end: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (settle = resolve));
  let controller!: ReadableStreamDefaultController<JsonRpcObject>;

  const close = (code: number, reason: string) => {
    if (!open) return;
    open = false;
    try {
      ws.close(code, reason);
    } catch {
      // Already closing; the close listener settles everything.
    }
  };

  const endInput = () => {
    try {
      controller.close();
    } catch {
      // Already closed or errored.
    }
  };

  const sendSerialised = (text: string) => {
    if (!open) throw settledError("the WebSocket is closed");
    ws.send(text);
    if (ws.bufferedAmount() > limits.maxBufferedBytes) {
      close(CLOSE.policyViolation, "outbound buffer limit exceeded: the client is not reading");
      // Its input ends too: the connection is over now, not when a client that does not read finishes the close handshake.
      endInput();
      throw settledError("the client is not reading its messages; disconnected");
    }
  };

  const send = (message: JsonRpcObject) => sendSerialised(JSON.stringify(message));

  const receive = (data: string | Uint8Array, isBinary: boolean) => {
    if (!open) return;
    if (isBinary) return close(CLOSE.unsupportedData, "binary frames are not supported; send JSON-RPC as text frames");
    const text = typeof data === "string" ? data : new TextDecoder().decode(data);
    if (text.length > limits.maxMessageBytes || encoder.encode(text).length > limits.maxMessageBytes) {
      return close(CLOSE.tooBig, `message exceeds ${limits.maxMessageBytes} bytes`);
    }
    const classified = classifyMessage(text);
    if ("reply" in classified) {
      try {
        send(classified.reply);
      } catch {
        // The socket went away while answering; nothing more to do.
      }
    } else {
      controller.enqueue(classified.message);
    }
  };
  // A throw inside a runtime's socket callback would take the whole server down (Bun exits on it):
  // whatever goes wrong with one message costs only its socket.
  ws.onMessage((data, isBinary) => {
    try {
      receive(data, isBinary);
    } catch {
      close(CLOSE.internalError, "internal error while reading a message");
    }
  });

  let awaitingPong = false;
  const keepalive =
    limits.pingIntervalMs > 0 && !ws.keepsAlive
      ? setInterval(() => {
          if (awaitingPong) return close(CLOSE.goingAway, "keepalive: no pong received");
          awaitingPong = true;
          try {
            ws.ping();
          } catch {
            close(CLOSE.goingAway, "keepalive: ping failed");
          }
        }, limits.pingIntervalMs)
      : undefined;
  ws.onPong(() => {
    awaitingPong = false;
  });

  ws.onClose((code, reason) => {
    open = false;
    clearInterval(keepalive);
    endInput();
    settle({ code, reason });
  });

  const readable = new ReadableStream<JsonRpcObject>({
    start(c) {
      controller = c;
    },
    cancel() {
      close(CLOSE.normal, "closed");
    },
  });
  const writable = new WritableStream<JsonRpcObject>({
    write: (message) => send(message),
    close: () => close(CLOSE.normal, "closed"),
    abort: () => close(CLOSE.goingAway, "aborted"),
  });
  return { readable, writable, closed, close, sendSerialised };
}

/**
 * An error whose stack is already text. Until it is read, a stack keeps every
 * function on it (and so this connection's socket and session) alive, and Node
 * 20 keeps an errored web stream, with its error, until the process exits: one
 * such error per closed connection would hold every closed connection.
 */
function settledError(message: string): Error {
  const error = new Error(message);
  void error.stack;
  return error;
}

