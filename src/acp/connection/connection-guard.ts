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
 * It also keeps the order messages arrived in, which the SDK's concurrent
 * dispatch loses: each request's place (`arrivalOf`), and each
 * `session/cancel` reported as it passes (`onSessionCancel`), before anything
 * sent after it is dispatched. It offers the events that order what the agent
 * sends around its answers: `afterAnswer` (run something once the answer to a request is
 * written, e.g. the updates that must follow the response that opened a
 * session) and `answered` (every request received so far is answered, e.g.
 * before a shutdown closes the connection).
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
  /**
   * Transports that hold output back to write it in batches offer this: it settles once everything passed
   * on so far has been written to their output (and rejects when that failed).
   */
  flushed?: () => Promise<void>;
}

/** The guarded stream pair, and the events that order output around the answers. */
export interface GuardedConnection extends MessageStreamPair {
  /**
   * Runs `callback` once the answer to request `id` has been written (result or error); whatever is
   * sent from then on follows it. Runs it at once when no answer to `id` is outstanding (the client is
   * gone, or never sent it). Callbacks for one id run in the order they were given; a client that has
   * two requests open under one id gets them after the first of those answers.
   */
  afterAnswer(id: JsonRpcId, callback: () => void): void;
  /** Settles once every request received so far is answered, or the client is gone, or `boundMs` passed. */
  answered(boundMs?: number): Promise<void>;
  /** The place in the arrival order of the request `id` that is outstanding (the latest, when a client reuses an id). */
  arrivalOf(id: JsonRpcId): number | undefined;
}

export interface GuardOptions {
  /** Called once when the client's input ends, before waiting for outstanding answers. */
  onInputEnd(): void;
  /** Called when the connection starts or stops owing its client an answer (a running turn is one). */
  onBusyChange?(busy: boolean): void;
  /**
   * Called for each `session/cancel` as it passes, with its place in the arrival order: before any message
   * sent after it reaches the SDK, and after every message sent before it did.
   */
  onSessionCancel?(sessionId: string, arrival: number): void;
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

/** Runs callbacks, each on its own: one that throws does not keep the others from running. */
function runAll(callbacks: readonly (() => void)[]): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch {
      // A callback's failure is its own (it reports what it must); the answer is out either way.
    }
  }
}

export function guardConnection(stream: MessageStreamPair, options: GuardOptions): GuardedConnection {
  // Requests received and not yet answered, counted per id: a client may reuse an id while one is open.
  const outstanding = new Map<JsonRpcId, number>();
  // What waits for the answer to a request, per id, in the order it was given.
  const waiting = new Map<JsonRpcId, (() => void)[]>();
  // What waits for every outstanding request to be answered.
  let idle: (() => void)[] = [];
  let initialize: { id: JsonRpcId; release(): void } | undefined;
  let gate: Promise<void> = Promise.resolve();

  const settleIdle = () => {
    const callbacks = idle;
    idle = [];
    runAll(callbacks);
  };
  // After the transport has written what it holds, so work started then does not hold up the answer's bytes.
  const whenFlushed = (callbacks: (() => void)[]) => {
    const flushed = stream.flushed?.();
    if (!flushed) return runAll(callbacks);
    void flushed.then(
      () => runAll(callbacks),
      () => runAll(callbacks),
    );
  };
  // Every message that passes gets the next place; requests keep theirs until they are answered.
  let arrivals = 0;
  const arrivalOfRequest = new Map<JsonRpcId, number>();
  const received = (id: JsonRpcId, arrival: number) => {
    arrivalOfRequest.set(id, arrival);
    outstanding.set(id, (outstanding.get(id) ?? 0) + 1);
    if (outstanding.size === 1 && outstanding.get(id) === 1) options.onBusyChange?.(true);
  };
  const answered = (id: unknown) => {
    const count = outstanding.get(id as JsonRpcId);
    if (count === undefined) return;
    if (count > 1) outstanding.set(id as JsonRpcId, count - 1);
    else {
      outstanding.delete(id as JsonRpcId);
      arrivalOfRequest.delete(id as JsonRpcId);
    }
    if (outstanding.size === 0) options.onBusyChange?.(false);
    if (initialize && Object.is(initialize.id, id)) initialize.release();
    const callbacks = waiting.get(id as JsonRpcId);
    if (callbacks) {
      waiting.delete(id as JsonRpcId);
      whenFlushed(callbacks);
    }
    if (outstanding.size === 0) settleIdle();
  };
  // Once a write has failed nothing can reach the client any more: stop waiting for answers to it.
  let gone = false;
  const clientGone = () => {
    gone = true;
    if (outstanding.size > 0) options.onBusyChange?.(false);
    outstanding.clear();
    arrivalOfRequest.clear();
    initialize?.release();
    const callbacks = [...waiting.values()].flat();
    waiting.clear();
    runAll(callbacks);
    settleIdle();
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

  const whenAnswered = async (boundMs: number): Promise<void> => {
    if (gone || outstanding.size === 0) return;
    await bounded(new Promise<void>((resolve) => idle.push(resolve)), boundMs);
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
        const arrival = ++arrivals;
        if (envelope.kind === "notification" && envelope.method === "session/cancel") {
          const sessionId = (message.params as { sessionId?: unknown } | undefined)?.sessionId;
          if (typeof sessionId === "string") options.onSessionCancel?.(sessionId, arrival);
        }
        if (envelope.kind === "request" && !gone) {
          received(envelope.id, arrival);
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
        await whenAnswered(options.drainTimeoutMs ?? DEFAULT_BOUND_MS);
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
  return {
    readable,
    writable,
    afterAnswer(id, callback) {
      if (gone || !outstanding.has(id)) return runAll([callback]);
      const queue = waiting.get(id);
      if (queue) queue.push(callback);
      else waiting.set(id, [callback]);
    },
    answered: (boundMs = options.drainTimeoutMs ?? DEFAULT_BOUND_MS) => whenAnswered(boundMs),
    arrivalOf: (id) => arrivalOfRequest.get(id),
  };
}
