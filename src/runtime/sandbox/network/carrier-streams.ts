/**
 * The agent's end of a carrier: it reads the forwarder's frames
 * (carrier-codec.ts) and turns each `open` into a duplex stream handed to
 * the filtering proxy, which judges it like any connection. The other end
 * may be a confined command speaking the framing itself (the pipes are the
 * forwarder's, but a process in the sandbox can reach another's pipes), so
 * nothing here trusts it: a broken frame, data beyond the credit granted,
 * or a reused stream id ends the whole carrier; streams beyond a bound are
 * reset at once; and no stream ever buffers more than one window.
 * @module
 */
import { Duplex } from "node:stream";
import { carrierCodec } from "./carrier-codec.ts";

/** Streams open at once on one carrier; an `open` beyond is reset. */
export const MAX_CARRIER_STREAMS = 64;

const codec = carrierCodec();
const { kinds } = codec;

/** The running agent end of one carrier. */
export interface CarrierEnd {
  /** Ends every stream and stops reading. */
  close(reason: string): void;
  /** Settles when the carrier is over (its input ended, it broke or was closed), with why. */
  readonly done: Promise<string>;
}

/**
 * Serves the carrier whose frames come in on `input` and go out through `send`; each new stream is
 * given to `accept` (the proxy).
 */
export function serveCarrier(input: NodeJS.ReadableStream, send: (frame: Uint8Array) => void, accept: (stream: Duplex) => void): CarrierEnd {
  const streams = new Map<number, CarrierStream>();
  let lastOpened = 0;
  let over: ((why: string) => void) | undefined;
  const done = new Promise<string>((resolve) => (over = resolve));
  let closed = false;
  const close = (why: string) => {
    if (closed) return;
    closed = true;
    input.removeListener("data", onData);
    for (const stream of streams.values()) stream.abandon();
    streams.clear();
    over?.(why);
  };
  const read = codec.reader((kind, id, value, payload) => {
    if (kind === kinds.open) {
      if (id <= lastOpened) throw new Error(`stream ${id} opened out of order`);
      lastOpened = id;
      if (streams.size >= MAX_CARRIER_STREAMS) return send(codec.encode(kinds.reset, id, 0));
      const stream = new CarrierStream(id, send, () => streams.delete(id));
      streams.set(id, stream);
      accept(stream);
      return;
    }
    // Frames of a stream that is gone (a reset crossed them on the way) are dropped.
    const stream = streams.get(id);
    if (!stream) return;
    if (kind === kinds.data) stream.receive(payload);
    else if (kind === kinds.end) stream.receiveEnd();
    else if (kind === kinds.reset) stream.receiveReset();
    else if (kind === kinds.credit) stream.receiveCredit(value);
  });
  const onData = (chunk: Uint8Array) => {
    try {
      read(chunk);
    } catch (error) {
      close(`the carrier broke its format (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  input.on("data", onData);
  input.on("end", () => close("the forwarder's pipe ended"));
  input.on("error", () => close("the forwarder's pipe failed"));
  return { close, done };
}

/** One connection of the sandbox's loopback, as the proxy sees it. */
class CarrierStream extends Duplex {
  readonly #id: number;
  readonly #send: (frame: Uint8Array) => void;
  readonly #forget: () => void;
  /** Bytes the forwarder may still send before it is granted more. */
  #allowance = codec.window;
  /** Bytes taken in while the reader was full: granted back once it reads on. */
  #owed = 0;
  /** Bytes the forwarder still lets this side send. */
  #credit = codec.window;
  /** A write waiting for credit: what is left of it and its callback. */
  #waiting: { rest: Uint8Array; done: (error?: Error | null) => void } | undefined;
  #gotEnd = false;
  #sentEnd = false;
  #gone = false;

  constructor(id: number, send: (frame: Uint8Array) => void, forget: () => void) {
    super({ allowHalfOpen: true });
    this.#id = id;
    this.#send = send;
    this.#forget = forget;
  }

  receive(payload: Uint8Array): void {
    if (this.#gotEnd || payload.length > this.#allowance) {
      // More than was granted, or data after its end: only a writer that ignores the protocol does this.
      this.#reset();
      return;
    }
    this.#allowance -= payload.length;
    if (this.push(payload)) this.#grant(payload.length);
    else this.#owed += payload.length;
  }

  receiveEnd(): void {
    if (this.#gotEnd) return;
    this.#gotEnd = true;
    this.push(null);
  }

  receiveReset(): void {
    this.#gone = true;
    this.#forget();
    this.destroy();
  }

  receiveCredit(value: number): void {
    this.#credit += value;
    // A credit beyond any window is a broken peer; the bound keeps the count meaningful.
    if (this.#credit > codec.window * 4) return this.#reset();
    this.#flush();
  }

  /** The carrier is over: the stream goes without a word to the other side. */
  abandon(): void {
    this.#gone = true;
    this.destroy();
  }

  override _read(): void {
    if (this.#owed === 0) return;
    const owed = this.#owed;
    this.#owed = 0;
    this.#grant(owed);
  }

  override _write(chunk: Uint8Array, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#waiting = { rest: chunk, done };
    this.#flush();
  }

  override _final(done: (error?: Error | null) => void): void {
    if (!this.#gone) this.#send(codec.encode(kinds.end, this.#id, 0));
    this.#sentEnd = true;
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (!this.#gone) {
      this.#gone = true;
      this.#forget();
      if (!(this.#sentEnd && this.#gotEnd)) this.#send(codec.encode(kinds.reset, this.#id, 0));
    }
    waiting?.done(error ?? new Error("the stream was reset"));
    done(error);
  }

  #grant(bytes: number): void {
    this.#allowance += bytes;
    if (!this.#gone) this.#send(codec.encode(kinds.credit, this.#id, bytes));
  }

  /** Sends what the credit allows of the waiting write; completes it once all is sent. */
  #flush(): void {
    const waiting = this.#waiting;
    if (!waiting || this.#gone) return;
    while (waiting.rest.length > 0 && this.#credit > 0) {
      const size = Math.min(waiting.rest.length, this.#credit, codec.maxData);
      this.#send(codec.encode(kinds.data, this.#id, size, waiting.rest.subarray(0, size)));
      waiting.rest = waiting.rest.subarray(size);
      this.#credit -= size;
    }
    if (waiting.rest.length > 0) return;
    this.#waiting = undefined;
    waiting.done();
  }

  #reset(): void {
    this.destroy();
  }
}
