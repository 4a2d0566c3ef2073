/**
 * Sits between a message stream and the SDK and keeps two promises the SDK
 * alone does not:
 * - messages after `initialize` wait until its response is written (the SDK
 *   dispatches concurrently, so a pipelined `session/new` would otherwise be
 *   refused as "not initialized");
 * - at end of input every request already received is still answered: the
 *   caller cancels running turns, then the input closes once the responses
 *   are out (bounded), so `printf … | acp-edge agent stdio` loses nothing.
 * @module
 */
type Message = Record<string, unknown>;

export interface MessageStreamPair {
  readable: ReadableStream<Message>;
  writable: WritableStream<Message>;
}

export interface GuardOptions {
  /** Called once when the client's input ends, before waiting for outstanding answers. */
  onInputEnd(): void;
  /** Longest wait for outstanding answers after end of input. */
  drainTimeoutMs?: number;
}

const isRequest = (m: Message) => typeof m.method === "string" && "id" in m;
const isResponse = (m: Message) => !("method" in m) && "id" in m;

export function guardConnection(stream: MessageStreamPair, options: GuardOptions): MessageStreamPair {
  const outstanding = new Set<unknown>();
  let drained: (() => void) | undefined;
  let initializeId: unknown;
  let initialized: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();

  const readable = stream.readable.pipeThrough(
    new TransformStream<Message, Message>({
      async transform(message, controller) {
        await gate;
        if (isRequest(message)) outstanding.add(message.id);
        controller.enqueue(message);
        if (message.method === "initialize" && isRequest(message)) {
          initializeId = message.id;
          gate = new Promise((resolve) => (initialized = resolve));
        }
      },
      async flush() {
        await gate;
        options.onInputEnd();
        if (outstanding.size === 0) return;
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, options.drainTimeoutMs ?? 5000))),
        ]);
        clearTimeout(timer);
      },
    }),
  );

  const writable = new WritableStream<Message>({
    async write(message) {
      const writer = stream.writable.getWriter();
      try {
        await writer.write(message);
      } catch (error) {
        // The client is gone: nothing outstanding can reach it any more, so stop waiting for it.
        outstanding.clear();
        drained?.();
        throw error;
      } finally {
        writer.releaseLock();
      }
      if (!isResponse(message)) return;
      outstanding.delete(message.id);
      if (initialized && message.id === initializeId) {
        initialized();
        initialized = undefined;
      }
      if (drained && outstanding.size === 0) drained();
    },
    close: () => stream.writable.close(),
    abort: (reason) => stream.writable.abort(reason),
  });
  return { readable, writable };
}
