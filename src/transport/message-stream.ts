/**
 * Bytes ⇄ JSON-RPC message objects over an auto-detected framing (NDJSON or
 * Content-Length). Mirrors the ACP SDK's `ndJsonStream`: invalid JSON, batches
 * and non-object values are answered with a JSON-RPC error (id null) and
 * skipped; objects are passed on without checking the envelope. The result
 * fits the SDK's `Stream` type after a cast.
 * @module
 */
import { FrameDecoder, type FrameEvent, type Framing } from "./frame-decoder.ts";
import { FrameWriter } from "./frame-encoder.ts";
import { classifyMessage, invalidRequest, type JsonRpcObject } from "./json-message.ts";
import { MAX_MESSAGE_BYTES } from "./frame-limits.ts";

export type { JsonRpcObject } from "./json-message.ts";

/** Why the input side ended. `fatal` carries the framing error to print before exiting. */
export type InputEnd =
  | { readonly reason: "end" }
  | { readonly reason: "cancel" }
  | { readonly reason: "fatal"; readonly message: string }
  | { readonly reason: "error"; readonly error: unknown };

/** Options for {@link createMessageStream}. */
export interface MessageStreamOptions {
  /** Largest accepted message in bytes; defaults to {@link MAX_MESSAGE_BYTES} (16 MiB). */
  maxMessageBytes?: number;
}

/** A framed byte connection seen as streams of message objects. */
export interface MessageStream {
  /** Incoming messages. Closes at end of input; errors with a {@link FramingError} when the framing breaks. */
  readonly readable: ReadableStream<JsonRpcObject>;
  /** Outgoing messages, coalesced per tick. Closing it flushes and then closes the output. */
  readonly writable: WritableStream<JsonRpcObject>;
  /** The framing detected from the input so far; replies use NDJSON until one is detected. */
  framing(): Framing | undefined;
  /** Settles (never rejects) once the input side is done, saying why. */
  readonly closed: Promise<InputEnd>;
  /**
   * Sends one message already serialised, after everything `writable` has passed on; throws when the output
   * is gone. Returns a promise only while the output is backed up.
   */
  sendSerialised(text: string): Promise<void> | undefined;
  /** Settles once every message passed on so far has been written to the output (rejects when it failed). */
  flushed(): Promise<void>;
}

/** The input cannot be decoded any further (broken Content-Length header, truncated frame, unknown framing). */
export class FramingError extends Error {
  override readonly name = "FramingError";
}


/**
 * Wraps a byte connection. On a fatal framing error nothing is written to
 * `output`; `readable` errors with a {@link FramingError} once the messages
 * decoded before it have been read, and `closed` resolves with
 * `{ reason: "fatal", message }` so the caller can report it and exit.
 */
export function createMessageStream(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  options: MessageStreamOptions = {},
): MessageStream {
  const maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const decoder = new FrameDecoder({ maxMessageBytes });
  const writer = new FrameWriter(output, () => decoder.framing ?? "ndjson");
  const text = new TextDecoder();
  const reader = input.getReader();
  const oversize = invalidRequest(`Invalid request: message exceeds the ${maxMessageBytes}-byte limit`);

  let settle!: (end: InputEnd) => void;
  const closed = new Promise<InputEnd>((resolve) => (settle = resolve));
  let done = false;
  const finish = (end: InputEnd): void => {
    if (done) return;
    done = true;
    settle(end);
  };
  let fatal: string | undefined;

  // Replies after the output has closed or failed have nobody to reach.
  const reply = (message: JsonRpcObject): Promise<void> => writer.send(message).catch(() => {});

  /** Handles decoded events; returns how many messages it enqueued. */
  async function handle(events: FrameEvent[], controller: ReadableStreamDefaultController<JsonRpcObject>): Promise<number> {
    let enqueued = 0;
    for (const event of events) {
      if (event.type === "fatal") {
        fatal = event.message;
        return enqueued;
      }
      if (event.type === "oversize") {
        await reply(oversize);
        continue;
      }
      const classified = classifyMessage(text.decode(event.body));
      if ("reply" in classified) {
        await reply(classified.reply);
      } else {
        controller.enqueue(classified.message);
        enqueued++;
      }
    }
    return enqueued;
  }

  function failFraming(controller: ReadableStreamDefaultController<JsonRpcObject>, message: string): void {
    const error = new FramingError(message);
    finish({ reason: "fatal", message });
    controller.error(error);
    reader.cancel(error).catch(() => {});
  }

  const readable = new ReadableStream<JsonRpcObject>({
    // Pull-driven, so a consumer that stops reading stops the input being read.
    async pull(controller) {
      if (fatal !== undefined) return failFraming(controller, fatal);
      try {
        while (!done) {
          const { value, done: ended } = await reader.read();
          if (done) return; // cancelled while reading
          const enqueued = await handle(ended ? decoder.end() : decoder.push(value), controller);
          // Messages decoded before a fatal error are delivered first: erroring
          // the stream would discard them, so that waits for the next pull.
          if (fatal !== undefined) return enqueued > 0 ? undefined : failFraming(controller, fatal);
          if (ended) {
            finish({ reason: "end" });
            controller.close();
            return;
          }
          if (enqueued > 0) return;
        }
      } catch (error) {
        if (done) return;
        finish({ reason: "error", error });
        controller.error(error);
      }
    },
    cancel(reason) {
      finish({ reason: "cancel" });
      return reader.cancel(reason);
    },
  });

  const writable = new WritableStream<JsonRpcObject>({
    write: (message) => writer.send(message),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });

  return { readable, writable, framing: () => decoder.framing, closed, sendSerialised: (json) => writer.sendText(json), flushed: () => writer.flushed() };
}
