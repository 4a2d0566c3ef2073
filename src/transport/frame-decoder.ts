/**
 * Incremental, byte-level decoder that splits a byte stream into message
 * bodies. The framing (NDJSON or LSP-style Content-Length headers) is detected
 * once from the first significant byte. The decoder works on bytes, never on
 * text, so Content-Length counts bytes and multibyte characters may be split
 * across chunks anywhere. It never buffers more than the message limit.
 * @module
 */
import { MAX_HEADER_BLOCK_BYTES, MAX_HEADER_LINE_BYTES, MAX_MESSAGE_BYTES } from "./frame-limits.ts";

/** How messages are delimited on a byte stream. */
export type Framing = "ndjson" | "content-length";

/**
 * What the decoder found. `message` bodies may be views into the chunk just
 * pushed: consume them before that chunk is reused. `oversize` means one
 * message over the limit was skipped and decoding goes on; `fatal` means the
 * stream cannot be decoded any further.
 */
export type FrameEvent =
  | { readonly type: "message"; readonly body: Uint8Array }
  | { readonly type: "oversize" }
  | { readonly type: "fatal"; readonly message: string };

/** Options for {@link FrameDecoder}. */
export interface FrameDecoderOptions {
  /** Largest accepted body in bytes; defaults to {@link MAX_MESSAGE_BYTES}. */
  maxMessageBytes?: number;
}

type State = "detect" | "line" | "skip-line" | "header" | "body" | "skip-body" | "failed" | "ended";

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

const isWhitespace = (byte: number | undefined): boolean =>
  byte === SPACE || byte === TAB || byte === CR || byte === LF;

/** Splits bytes into message bodies; feed it with {@link push} and finish with {@link end}. */
export class FrameDecoder {
  readonly #max: number;
  #framing: Framing | undefined;
  #state: State = "detect";
  /** The unterminated NDJSON line or header line carried across chunks. */
  readonly #pending = new ByteBuffer();
  #headerBytes = 0;
  #headerCount = 0;
  /** Header lines other than a plain Content-Length, kept for error messages. */
  #headerLines: string[] = [];
  #contentLength: number | undefined;
  #body: Uint8Array | undefined;
  #bodyLength = 0;
  #bodyFilled = 0;
  #skipRemaining = 0;
  readonly #headerText = new TextDecoder("utf-8");

  constructor(options: FrameDecoderOptions = {}) {
    const max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`maxMessageBytes must be a positive integer, got ${max}`);
    this.#max = max;
  }

  /** The detected framing, or undefined before the first significant byte. */
  get framing(): Framing | undefined {
    return this.#framing;
  }

  /** Consumes one chunk and returns what it completed, in stream order. */
  push(chunk: Uint8Array): FrameEvent[] {
    if (this.#state === "ended") throw new Error("FrameDecoder.push called after end()");
    const events: FrameEvent[] = [];
    let pos = 0;
    while (pos < chunk.byteLength && this.#state !== "failed") {
      switch (this.#state) {
        case "detect":
          pos = this.#detect(chunk, pos, events);
          break;
        case "line":
          pos = this.#line(chunk, pos, events);
          break;
        case "skip-line": {
          const newline = chunk.indexOf(LF, pos);
          if (newline === -1) return events;
          this.#state = "line";
          pos = newline + 1;
          break;
        }
        case "header":
          pos = this.#header(chunk, pos, events);
          break;
        case "body":
          pos = this.#fillBody(chunk, pos, events);
          break;
        case "skip-body": {
          const take = Math.min(this.#skipRemaining, chunk.byteLength - pos);
          this.#skipRemaining -= take;
          if (this.#skipRemaining === 0) this.#state = "header";
          pos += take;
          break;
        }
      }
    }
    return events;
  }

  /** Signals end of input: flushes a final NDJSON line, or reports a truncated frame. */
  end(): FrameEvent[] {
    const events: FrameEvent[] = [];
    switch (this.#state) {
      case "line":
        if (this.#pending.length > 0) this.#emitLine(this.#pending.take(), events);
        break;
      case "header":
        if (this.#headerCount > 0 || !this.#pending.isBlank()) {
          this.#fail("end of input in the middle of a Content-Length frame header", events);
        }
        break;
      case "body":
        this.#fail(`end of input in the middle of a Content-Length frame body (received ${this.#bodyFilled} of ${this.#bodyLength} bytes)`, events);
        break;
      case "skip-body":
        this.#fail(`end of input in the middle of an oversized Content-Length frame body (${this.#skipRemaining} bytes missing)`, events);
        break;
    }
    if (this.#state !== "failed") this.#state = "ended";
    this.#pending.clear();
    return events;
  }

  #detect(chunk: Uint8Array, pos: number, events: FrameEvent[]): number {
    while (pos < chunk.byteLength && isWhitespace(chunk[pos])) pos++;
    if (pos === chunk.byteLength) return pos;
    const first = chunk[pos] as number;
    if (first === 0x7b || first === 0x5b) {
      this.#framing = "ndjson";
      this.#state = "line";
    } else if (first === 0x43 || first === 0x63) {
      this.#framing = "content-length";
      this.#state = "header";
    } else {
      this.#fail(`unrecognised framing: the first byte is ${describeByte(first)}; expected "{" or "[" (NDJSON) or a "Content-Length:" header`, events);
    }
    return pos;
  }

  #line(chunk: Uint8Array, pos: number, events: FrameEvent[]): number {
    const newline = chunk.indexOf(LF, pos);
    if (newline === -1) {
      // One byte of slack for a CR that the LF may yet follow.
      if (this.#pending.length + chunk.byteLength - pos > this.#max + 1) {
        this.#pending.clear();
        this.#state = "skip-line";
        events.push({ type: "oversize" });
      } else {
        this.#pending.append(chunk.subarray(pos));
      }
      return chunk.byteLength;
    }
    const tail = chunk.subarray(pos, newline);
    if (this.#pending.length === 0) {
      this.#emitLine(tail, events);
    } else if (this.#pending.length + tail.byteLength > this.#max + 1) {
      this.#pending.clear();
      events.push({ type: "oversize" });
    } else {
      this.#pending.append(tail);
      this.#emitLine(this.#pending.take(), events);
    }
    return newline + 1;
  }

  #emitLine(line: Uint8Array, events: FrameEvent[]): void {
    const length = line[line.byteLength - 1] === CR ? line.byteLength - 1 : line.byteLength;
    if (length > this.#max) {
      events.push({ type: "oversize" });
      return;
    }
    if (length === 0 || (isWhitespace(line[0]) && isBlank(line, length))) return;
    events.push({ type: "message", body: line.subarray(0, length) });
  }

  #header(chunk: Uint8Array, pos: number, events: FrameEvent[]): number {
    const newline = chunk.indexOf(LF, pos);
    const end = newline === -1 ? chunk.byteLength : newline;
    const lineLength = this.#pending.length + end - pos;
    this.#headerBytes += end - pos + (newline === -1 ? 0 : 1);
    if (lineLength > MAX_HEADER_LINE_BYTES + 1) {
      this.#fail(`invalid Content-Length frame header: a header line is longer than ${MAX_HEADER_LINE_BYTES} bytes`, events);
      return chunk.byteLength;
    }
    if (this.#headerBytes > MAX_HEADER_BLOCK_BYTES) {
      this.#fail(`invalid Content-Length frame header: no blank line ends the header within ${MAX_HEADER_BLOCK_BYTES} bytes`, events);
      return chunk.byteLength;
    }
    let raw: Uint8Array;
    if (this.#pending.length === 0 && newline !== -1) {
      raw = chunk.subarray(pos, end);
    } else {
      this.#pending.append(chunk.subarray(pos, end));
      if (newline === -1) return chunk.byteLength;
      raw = this.#pending.take();
    }
    const length = raw[raw.byteLength - 1] === CR ? raw.byteLength - 1 : raw.byteLength;
    if (length > MAX_HEADER_LINE_BYTES) {
      this.#fail(`invalid Content-Length frame header: a header line is longer than ${MAX_HEADER_LINE_BYTES} bytes`, events);
      return chunk.byteLength;
    }
    const fast = plainContentLength(raw, length);
    if (fast !== undefined) {
      this.#headerCount++;
      this.#setContentLength(fast, events);
      return newline + 1;
    }
    const line = this.#headerText.decode(raw.subarray(0, length)).trim();
    if (line === "") {
      if (this.#headerCount === 0) this.#headerBytes = 0; // blank lines between frames are tolerated
      else this.#endHeader(events);
    } else {
      this.#headerLine(line, events);
    }
    return newline + 1;
  }

  #headerLine(line: string, events: FrameEvent[]): void {
    this.#headerCount++;
    this.#headerLines.push(line);
    const colon = line.indexOf(":");
    if (colon <= 0) {
      this.#fail(`invalid Content-Length frame header: ${quote(line)}`, events);
      return;
    }
    if (line.slice(0, colon).trim().toLowerCase() !== "content-length") return;
    const value = line.slice(colon + 1).trim();
    const length = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
    if (Number.isSafeInteger(length)) this.#setContentLength(length, events);
    else this.#fail(`invalid Content-Length frame header: ${quote(line)}`, events);
  }

  #setContentLength(length: number, events: FrameEvent[]): void {
    if (this.#contentLength !== undefined && this.#contentLength !== length) {
      this.#fail(`invalid Content-Length frame header: conflicting Content-Length values ${this.#contentLength} and ${length}`, events);
    } else {
      this.#contentLength = length;
    }
  }

  #endHeader(events: FrameEvent[]): void {
    const length = this.#contentLength;
    if (length === undefined) {
      this.#fail(`invalid Content-Length frame header: no Content-Length in ${quote(this.#headerLines.join("\r\n"))}`, events);
      return;
    }
    this.#headerCount = 0;
    if (this.#headerLines.length > 0) this.#headerLines = [];
    this.#headerBytes = 0;
    this.#contentLength = undefined;
    if (length > this.#max) {
      // The declared length is known up front, so the body is skipped, never buffered.
      events.push({ type: "oversize" });
      this.#skipRemaining = length;
      this.#state = length === 0 ? "header" : "skip-body";
    } else if (length === 0) {
      events.push({ type: "message", body: new Uint8Array(0) });
    } else {
      this.#bodyLength = length;
      this.#bodyFilled = 0;
      this.#state = "body";
    }
  }

  #fillBody(chunk: Uint8Array, pos: number, events: FrameEvent[]): number {
    const available = chunk.byteLength - pos;
    if (this.#body === undefined && available >= this.#bodyLength) {
      events.push({ type: "message", body: chunk.subarray(pos, pos + this.#bodyLength) });
      this.#state = "header";
      return pos + this.#bodyLength;
    }
    this.#body ??= new Uint8Array(this.#bodyLength);
    const take = Math.min(available, this.#bodyLength - this.#bodyFilled);
    this.#body.set(chunk.subarray(pos, pos + take), this.#bodyFilled);
    this.#bodyFilled += take;
    if (this.#bodyFilled === this.#bodyLength) {
      events.push({ type: "message", body: this.#body });
      this.#body = undefined;
      this.#state = "header";
    }
    return pos + take;
  }

  #fail(message: string, events: FrameEvent[]): void {
    this.#state = "failed";
    this.#pending.clear();
    this.#body = undefined;
    this.#headerLines = [];
    events.push({ type: "fatal", message });
  }
}

const CONTENT_LENGTH = [..."content-length"].map((c) => c.charCodeAt(0));

/**
 * The value of a line that is exactly `Content-Length:<digits>` (name in any
 * case, blanks around the value), read straight from bytes because it heads
 * every frame; anything else is left to the general header parser.
 */
function plainContentLength(raw: Uint8Array, length: number): number | undefined {
  if (length < 16 || raw[14] !== 0x3a) return undefined;
  for (let i = 0; i < 14; i++) {
    const byte = raw[i] as number;
    if ((byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte) !== CONTENT_LENGTH[i]) return undefined;
  }
  let start = 15;
  let end = length;
  while (start < end && (raw[start] === SPACE || raw[start] === TAB)) start++;
  while (end > start && (raw[end - 1] === SPACE || raw[end - 1] === TAB)) end--;
  if (end === start || end - start > 15) return undefined; // 15 digits stay exact in a double
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = (raw[i] as number) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  return value;
}

function isBlank(line: Uint8Array, length: number): boolean {
  for (let i = 0; i < length; i++) if (!isWhitespace(line[i])) return false;
  return true;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

function describeByte(byte: number): string {
  const hex = `0x${byte.toString(16).padStart(2, "0")}`;
  return byte >= 0x21 && byte <= 0x7e ? `${JSON.stringify(String.fromCharCode(byte))} (${hex})` : hex;
}

/** A growable byte buffer that keeps its storage between lines while it is small. */
class ByteBuffer {
  static readonly #keep = 64 * 1024;
  #bytes = new Uint8Array(0);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  append(bytes: Uint8Array): void {
    const needed = this.#length + bytes.byteLength;
    if (needed > this.#bytes.byteLength) {
      const grown = new Uint8Array(Math.max(needed, this.#bytes.byteLength * 2, 256));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    this.#bytes.set(bytes, this.#length);
    this.#length = needed;
  }

  /** Returns the contents (a fresh copy, or the storage itself when it is large) and empties the buffer. */
  take(): Uint8Array {
    const length = this.#length;
    this.#length = 0;
    if (this.#bytes.byteLength <= ByteBuffer.#keep) return this.#bytes.slice(0, length);
    const out = this.#bytes.subarray(0, length);
    this.#bytes = new Uint8Array(0);
    return out;
  }

  isBlank(): boolean {
    return isBlank(this.#bytes, this.#length);
  }

  clear(): void {
    this.#length = 0;
    if (this.#bytes.byteLength > ByteBuffer.#keep) this.#bytes = new Uint8Array(0);
  }
}
