/**
 * Sits between a message stream and the SDK and keeps three promises the SDK
 * alone does not:
 * - a message that is not JSON-RPC is answered `-32600` (`id: null`) here and
 *   never reaches the SDK, so every request the SDK sees is one it answers
 *   under the request's own id;
 * - messages after `initialize` wait until its response is written (the SDK
 *   dispatches concurrently, so a pipelined `session/new` would otherwise be
 *   refused as "not initialized");
 * - at end of input every request already received is still answered: the
 *   caller cancels running turns, then the input closes once the responses
 *   are out, so `printf … | acp-edge agent stdio` loses nothing.
 * Every wait is bounded: whatever a client sends, nothing here waits forever
 * for an answer that does not come.
 * @module
 */
import { classifyEnvelope, invalidEnvelopeReply, type JsonRpcId } from "./jsonrpc-envelope.ts";

type Message = Record<string, unknown>;

export interface MessageStreamPair {
  readable: ReadableStream<Message>;
  writable: WritableStream<Message>;
  /**
   * Transports that can take a message already serialised offer this: it sends the text at once, after
   * whatever `writable` has already passed on, and throws when the connection is gone; a promise it returns
   * settles when the output has room again.
   */
  sendSerialised?: (text: string) => Promise<void> | void;
}

export interface GuardOptions {
  /** Called once when the client's input ends, before waiting for outstanding answers. */
  onInputEnd(): void;
  /** Called when the connection starts or stops owing its client an answer (a running turn is one). */
  onBusyChange?(busy: boolean): void;
  /** Longest wait for outstanding answers after end of input. */
  drainTimeoutMs?: number;
  /** Longest time messages after `initialize` wait for its answer before they go on regardless. */
  initializeTimeoutMs?: number;
}

const DEFAULT_BOUND_MS = 5000;

/** Resolves after `ms`, or earlier when `done` settles; never keeps a timer alive past that. */
async function bounded(done: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export function guardConnection(stream: MessageStreamPair, options: GuardOptions): MessageStreamPair {
  // Requests received and not yet answered, counted per id: a client may reuse an id while one is open.
  const outstanding = new Map<JsonRpcId, number>();
  let drained: (() => void) | undefined;
  let initialize: { id: JsonRpcId; release(): void } | undefined;
  let gate: Promise<void> = Promise.resolve();

  const received = (id: JsonRpcId) => {
    outstanding.set(id, (outstanding.get(id) ?? 0) + 1);
    if (outstanding.size === 1 && outstanding.get(id) === 1) options.onBusyChange?.(true);
  };
  const answered = (id: unknown) => {
    const count = outstanding.get(id as JsonRpcId);
    if (count === undefined) return;
    if (count > 1) outstanding.set(id as JsonRpcId, count - 1);
    else outstanding.delete(id as JsonRpcId);
    if (outstanding.size === 0) options.onBusyChange?.(false);
    if (initialize && Object.is(initialize.id, id)) initialize.release();
    if (drained && outstanding.size === 0) drained();
  };
  // Once a write has failed nothing can reach the client any more: stop waiting for answers to it.
  let gone = false;
  const clientGone = () => {
    gone = true;
    if (outstanding.size > 0) options.onBusyChange?.(false);
    outstanding.clear();
    initialize?.release();
    drained?.();
  };

  // The SDK's answers and the guard's own share the output, one write at a time.
  let writing: Promise<void> = Promise.resolve();
  const write = (message: Message): Promise<void> => {
    const next = writing.then(async () => {
      const writer = stream.writable.getWriter();
      try {
        await writer.write(message);
      } finally {
        writer.releaseLock();
      }
    });
    writing = next.catch(() => undefined);
    return next;
  };

  const readable = stream.readable.pipeThrough(
    new TransformStream<Message, Message>({
      async transform(message, controller) {
        await gate;
        const envelope = classifyEnvelope(message);
        if (envelope.kind === "invalid") {
          // A failed reply means the client is gone, as for any other write.
          await write(invalidEnvelopeReply(envelope.reason)).catch(clientGone);
          return;
        }
        if (envelope.kind === "request" && !gone) {
          received(envelope.id);
          if (envelope.method === "initialize") {
            let release!: () => void;
            const released = new Promise<void>((resolve) => (release = resolve));
            initialize = { id: envelope.id, release };
            gate = bounded(released, options.initializeTimeoutMs ?? DEFAULT_BOUND_MS).then(() => {
              initialize = undefined;
            });
          }
        }
        controller.enqueue(message);
      },
      async flush() {
        options.onInputEnd();
        if (gone || outstanding.size === 0) return;
        await bounded(new Promise<void>((resolve) => (drained = resolve)), options.drainTimeoutMs ?? DEFAULT_BOUND_MS);
      },
    }),
  );

  const writable = new WritableStream<Message>({
    async write(message) {
      try {
        await write(message);
      } catch (error) {
        clientGone();
        throw error;
      }
      if (!("method" in message) && "id" in message) answered(message.id);
    },
    close: async () => {
      await writing;
      await stream.writable.close();
    },
    abort: async (reason) => {
      await writing;
      await stream.writable.abort(reason);
    },
  });
  return { readable, writable };
}
