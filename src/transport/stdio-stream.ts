/**
 * The process's stdin/stdout as a message stream, with the framing detected
 * from the first bytes the client sends.
 * @module
 */
import { stdioStreams } from "../runtime/host/stdio.ts";
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

/**
 * `source` as a stream that also ends when `end` is called. Each read waits on
 * a promise of its own: racing every read against one long-lived "ended"
 * promise would keep every chunk ever read reachable from it.
 */
function endableInput(source: ReadableStream<Uint8Array>): { input: ReadableStream<Uint8Array>; end(): void } {
  const reader = source.getReader();
  let ended = false;
  let wake: (() => void) | undefined;
  const finish = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    controller.close();
    reader.cancel().catch(() => undefined);
  };
  const input = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (ended) return finish(controller);
      const next = await new Promise<ReadableStreamReadResult<Uint8Array>>((resolve, reject) => {
        wake = () => resolve({ done: true, value: undefined });
        reader.read().then(resolve, reject);
      });
      wake = undefined;
      if (next.done) return finish(controller);
      controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return {
    input,
    end() {
      ended = true;
      wake?.();
    },
  };
}
