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

/** Text waiting to be read, at most `limit` UTF-16 units, with a count of the bytes dropped before it. */
export class UnreadOutput {
  readonly #limit: number;
  #text = "";
  #dropped = 0;
  #listeners: Array<() => void> = [];

  constructor(limit = UNREAD_OUTPUT_LIMIT) {
    this.#limit = limit;
  }

  /** Whether anything waits to be read. */
  get pending(): boolean {
    return this.#text !== "" || this.#dropped > 0;
  }

  push(text: string): void {
    if (text === "") return;
    this.#text += text;
    if (this.#text.length > this.#limit) {
      let cut = this.#text.length - this.#limit;
      // Never keep half of a surrogate pair.
      const code = this.#text.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) cut++;
      this.#dropped += utf8Length(this.#text.slice(0, cut));
      this.#text = this.#text.slice(cut);
    }
    this.#notify();
  }

  /** Takes everything unread: the tail within the model's budget, and the bytes dropped before it. */
  take(): { output: string; droppedBytes: number } {
    const tail = truncateTail(this.#text, { maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES });
    const droppedBytes = this.#dropped + tail.totalBytes - tail.outputBytes;
    this.#text = "";
    this.#dropped = 0;
    return { output: tail.content, droppedBytes };
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
