/**
 * The output of a background command that the model has not read yet:
 * bounded (older text is dropped and counted, never kept), and handed out
 * as the tail the model's budget allows, so a chatty server costs neither
 * memory nor context.
 * @module
 */
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncateTail, utf8Length } from "../truncate.ts";

/** Unread output kept per background command; older unread output is dropped. */
export const UNREAD_OUTPUT_LIMIT = 256 * 1024;

/**
 * A run of text as it was pushed, with the bytes the command wrote for it. It is "clean" when those
 * bytes are its UTF-8 form (plain text): then any part of it can be counted exactly. Output that was
 * not valid UTF-8 (binary) decodes to replacement characters of 3 bytes each for one byte written, so
 * such a piece is only ever dropped whole, and its bytes counted as written.
 */
interface Piece {
  text: string;
  bytes: number;
  clean: boolean;
}

/** Text waiting to be read, at most `limit` UTF-16 units (plus one piece that is not plain text), with a count of the bytes dropped before it. */
export class UnreadOutput {
  readonly #limit: number;
  #pieces: Piece[] = [];
  #length = 0;
  #dropped = 0;
  #listeners: Array<() => void> = [];

  constructor(limit = UNREAD_OUTPUT_LIMIT) {
    this.#limit = limit;
  }

  /** Whether anything waits to be read. */
  get pending(): boolean {
    return this.#length > 0 || this.#dropped > 0;
  }

  /**
   * Adds `text`, which stands for `bytes` bytes of the command's output (by default its UTF-8 size:
   * pass what was written when the text was decoded from bytes, so dropped output is counted as written).
   */
  push(text: string, bytes = utf8Length(text)): void {
    if (text === "" && bytes === 0) return;
    this.#pieces.push({ text, bytes, clean: bytes === utf8Length(text) });
    this.#length += text.length;
    this.#trim();
    if (text !== "") this.#notify();
  }

  /** Drops the oldest text past the limit: plain text to the unit (never half a surrogate pair), other pieces whole. */
  #trim(): void {
    while (this.#length > this.#limit) {
      const first = this.#pieces[0]!;
      const excess = this.#length - this.#limit;
      if (first.text.length <= excess || (!first.clean && this.#pieces.length > 1)) {
        this.#pieces.shift();
        this.#dropped += first.bytes;
        this.#length -= first.text.length;
        continue;
      }
      // Not plain text and alone: kept whole (a caller decodes in small slices, so it is small).
      if (!first.clean) return;
      let cut = excess;
      const code = first.text.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) cut++;
      const gone = utf8Length(first.text.slice(0, cut));
      first.text = first.text.slice(cut);
      first.bytes -= gone;
      this.#dropped += gone;
      this.#length -= cut;
    }
  }

  /** Takes everything unread: the tail within the model's budget, and the bytes dropped before it, as the command wrote them. */
  take(): { output: string; droppedBytes: number } {
    const text = this.#pieces.map((piece) => piece.text).join("");
    const tail = truncateTail(text, { maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES });
    let start = text.length - tail.content.length;
    let dropped = this.#dropped;
    let at = 0;
    for (const piece of this.#pieces) {
      const end = at + piece.text.length;
      if (end <= start) dropped += piece.bytes;
      else if (at < start) {
        // The tail starts inside this piece: plain text is counted to the cut; other text is left out whole.
        if (piece.clean) dropped += utf8Length(piece.text.slice(0, start - at));
        else {
          dropped += piece.bytes;
          start = end;
        }
      }
      at = end;
    }
    this.#pieces = [];
    this.#length = 0;
    this.#dropped = 0;
    return { output: text.slice(start), droppedBytes: dropped };
  }

  /** Calls `listener` once, at the next push (or `wake`). */
  onChange(listener: () => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** Wakes the waiting listeners without new text (the command ended). */
  wake(): void {
    this.#notify();
  }

  #notify(): void {
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** Resolves when `ready()` holds, at the next change of `output` after which it holds, after `ms`, or when `signal` aborts. */
export function whenReady(output: UnreadOutput, ready: () => boolean, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ready() || ms <= 0 || signal.aborted) return resolve();
    let off = () => {};
    const done = () => {
      clearTimeout(timer);
      off();
      signal.removeEventListener("abort", done);
      resolve();
    };
    const listen = () => {
      off = output.onChange(() => (ready() ? done() : listen()));
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    listen();
  });
}
