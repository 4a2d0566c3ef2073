/**
 * Encoding messages as frames, and a writer that coalesces the messages sent
 * in one turn of the event loop into a single write to the byte stream.
 * @module
 */
import type { Framing } from "./frame-decoder.ts";
import { WRITE_HIGH_WATER_CHARS } from "./frame-limits.ts";
import { afterCurrentTask } from "../runtime/timers.ts";

const textEncoder = new TextEncoder();

/** Most messages in one write while the event loop stays busy, so the first of a long burst is not held back by the rest. */
const MAX_BATCH_MESSAGES = 256;

/** Encodes one JSON text as a frame of the given framing. */
export function encodeFrame(json: string, framing: Framing): Uint8Array {
  return encodeFrames([json], framing);
}

/** Encodes JSON texts as consecutive frames in one buffer. */
export function encodeFrames(jsons: readonly string[], framing: Framing): Uint8Array {
  if (jsons.length === 0) return new Uint8Array(0);
  if (framing === "ndjson") return textEncoder.encode(`${jsons.join("\n")}\n`);
  const bodies = jsons.map((json) => textEncoder.encode(json));
  const headers = bodies.map((body) => `Content-Length: ${body.byteLength}\r\n\r\n`);
  let total = 0;
  for (let i = 0; i < bodies.length; i++) total += (headers[i] as string).length + (bodies[i] as Uint8Array).byteLength;
  const out = new Uint8Array(total);
  let offset = 0;
  for (let i = 0; i < bodies.length; i++) {
    offset += textEncoder.encodeInto(headers[i] as string, out.subarray(offset)).written;
    out.set(bodies[i] as Uint8Array, offset);
    offset += (bodies[i] as Uint8Array).byteLength;
  }
  return out;
}

/** Serializes a message to JSON text, refusing values JSON cannot represent. */
export function toJson(message: unknown): string {
  const json = JSON.stringify(message);
  if (typeof json !== "string") throw new TypeError(`cannot encode ${typeof message} as a JSON-RPC message`);
  return json;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // a batch nobody waits on may fail unobserved
  return { promise, resolve, reject };
}

/**
 * Writes messages to a byte stream as frames. Messages sent in the same tick
 * leave in one `write()`; only one write is in flight at a time, so writes
 * never interleave, and `writer.ready` is awaited before each. Owns the
 * output's writer lock from construction.
 */
export class FrameWriter {
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #framing: () => Framing;
  #pending: string[] = [];
  #pendingChars = 0;
  /** Settles when the current pending batch has been written; created only when someone waits. */
  #pendingDone: Deferred | undefined;
  #scheduled = false;
  #inFlight: Promise<void> | undefined;
  #failure: { error: unknown } | undefined;
  #closing = false;

  /** `framing` is asked at each flush, so replies follow a framing detected after construction. */
  constructor(output: WritableStream<Uint8Array>, framing: () => Framing = () => "ndjson") {
    this.#writer = output.getWriter();
    this.#framing = framing;
    this.#writer.closed.catch(() => {}); // failures surface through write()
  }

  /**
   * Queues a message. Resolves at once while little is queued; past the
   * high-water mark, resolves only when the batch has been written, so a
   * producer that awaits `send` feels the output's backpressure.
   */
  send(message: unknown): Promise<void> {
    try {
      return this.sendText(toJson(message)) ?? Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Queues one message already serialised as JSON. Returns nothing while
   * little is queued (no promise per message on the streaming path), else a
   * promise settled when the batch has been written; throws when the output
   * has failed or is closing.
   */
  sendText(json: string): Promise<void> | undefined {
    if (this.#failure) throw this.#failure.error;
    if (this.#closing) throw new TypeError("FrameWriter is closed");
    this.#pending.push(json);
    this.#pendingChars += json.length;
    // A producer that never yields to the event loop (a burst of hundreds of deltas read at once) still gets
    // its output written once the backlog is large or long.
    const overdue = this.#pendingChars >= WRITE_HIGH_WATER_CHARS || this.#pending.length >= MAX_BATCH_MESSAGES;
    if (overdue && !this.#inFlight) void this.#flush();
    else this.#schedule();
    if (this.#pendingChars < WRITE_HIGH_WATER_CHARS) return undefined;
    this.#pendingDone ??= deferred();
    return this.#pendingDone.promise;
  }

  /** Settles once every message sent so far has been written to the output (rejects when the output failed). */
  flushed(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    if (this.#pending.length === 0) return this.#inFlight ?? Promise.resolve();
    this.#pendingDone ??= deferred();
    return this.#pendingDone.promise;
  }

  /** Writes everything sent so far, then closes the output. */
  async close(): Promise<void> {
    this.#closing = true;
    while (this.#inFlight || this.#pending.length > 0) await this.#flush();
    if (this.#failure) throw this.#failure.error;
    await this.#writer.close();
  }

  /** Drops unsent messages and aborts the output. */
  async abort(reason?: unknown): Promise<void> {
    this.#closing = true;
    this.#fail(reason ?? new Error("FrameWriter aborted"));
    await this.#writer.abort(reason);
  }

  /**
   * Writes the batch once the current task of the event loop is done: every
   * message produced while handling one input (a network read of a model
   * stream can carry hundreds of deltas, each a few microtasks apart) leaves
   * in one write, and no timer's millisecond is added.
   */
  #schedule(): void {
    if (this.#scheduled || this.#inFlight) return;
    this.#scheduled = true;
    afterCurrentTask(this.#run);
  }

  readonly #run = (): void => {
    this.#scheduled = false;
    void this.#flush();
  };

  /** Starts writing the pending batch; the returned promise never rejects. */
  #flush(): Promise<void> {
    if (this.#inFlight) return this.#inFlight;
    if (this.#pending.length === 0 || this.#failure) return Promise.resolve();
    const batch = this.#pending;
    const done = this.#pendingDone;
    this.#pending = [];
    this.#pendingChars = 0;
    this.#pendingDone = undefined;
    const flight = this.#write(encodeFrames(batch, this.#framing())).then(
      () => done?.resolve(),
      (error: unknown) => {
        this.#fail(error);
        done?.reject(error);
      },
    );
    this.#inFlight = flight.finally(() => {
      this.#inFlight = undefined;
      if (this.#pending.length > 0 && !this.#closing) this.#schedule();
    });
    return this.#inFlight;
  }

  async #write(bytes: Uint8Array): Promise<void> {
    await this.#writer.ready;
    await this.#writer.write(bytes);
  }

  #fail(error: unknown): void {
    this.#failure ??= { error };
    this.#pending = [];
    this.#pendingChars = 0;
    this.#pendingDone?.reject(error);
    this.#pendingDone = undefined;
  }
}
