/**
 * The process's stdin/stdout as a message stream, with the framing detected
 * from the first bytes the client sends.
 * @module
 */
import { stdioStreams } from "../runtime/stdio.ts";
import { createMessageStream, type MessageStream } from "./message-stream.ts";

/** The stdio message stream, whose input can also be ended from within (on a terminating signal). */
export interface StdioMessageStream extends MessageStream {
  /** Ends the input as if stdin had closed: what was read is handled, and whatever stdin sends later is ignored. */
  endInput(): void;
}

/** stdin/stdout as a message stream; call once (it owns the file descriptors). */
export function openStdioMessageStream(): StdioMessageStream {
  const { readable, writable } = stdioStreams();
  const { input, end } = endableInput(readable);
  return Object.assign(createMessageStream(input, writable), { endInput: end });
}

/** `source` as a stream that also ends when `end` is called. */
function endableInput(source: ReadableStream<Uint8Array>): { input: ReadableStream<Uint8Array>; end(): void } {
  const reader = source.getReader();
  let end!: () => void;
  const ended = new Promise<{ done: true; value: undefined }>((resolve) => (end = () => resolve({ done: true, value: undefined })));
  const input = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await Promise.race([reader.read(), ended]);
      if (!next.done) return controller.enqueue(next.value);
      controller.close();
      reader.cancel().catch(() => undefined);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { input, end };
}
