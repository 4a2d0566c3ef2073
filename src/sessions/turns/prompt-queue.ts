/**
 * The prompts waiting for a session's one turn: first come, first served,
 * with a bound. A waiting prompt is told once whether its turn came
 * (`true`) or it was dropped (`false`: cancelled, its client left, the
 * session closed).
 * @module
 */

/** Prompts a session keeps waiting behind the running turn; one more is refused. */
export const PROMPT_QUEUE_LIMIT = 16;
/** Characters of content a session keeps waiting (each prompt is bounded by the transport, the queue by this). */
export const PROMPT_QUEUE_CHARS = 32 * 1024 * 1024;

/** One prompt (or command, or turn started by steering) waiting for the turn. */
export interface Waiting {
  /** The connection that sent it. */
  readonly clientId: string;
  /** Characters of its content, counted against the queue's budget. */
  readonly size: number;
  /** Settles its wait: true when its turn came, false when it was dropped. Only the first call counts. */
  settle(started: boolean): void;
}

/**
 * Whether one more entry of `size` characters fits behind `count` entries
 * holding `chars`: at most `limit` entries and `maxChars` characters, except
 * that one entry always fits an empty queue (the transport's message bound
 * already holds it). The rule of both the prompt queue and steered messages.
 */
export function fitsQueue(count: number, chars: number, size: number, limit = PROMPT_QUEUE_LIMIT, maxChars = PROMPT_QUEUE_CHARS): boolean {
  if (count >= limit) return false;
  return count === 0 || chars + size <= maxChars;
}

/** A FIFO of waiting prompts. */
export class PromptQueue<T extends Waiting> {
  readonly limit: number;
  readonly maxChars: number;
  #waiting: T[] = [];
  #chars = 0;

  constructor(limit = PROMPT_QUEUE_LIMIT, maxChars = PROMPT_QUEUE_CHARS) {
    this.limit = limit;
    this.maxChars = maxChars;
  }

  /** How many wait. */
  get size(): number {
    return this.#waiting.length;
  }

  /** Adds `entry` at the end; false (and nothing added) when `limit` entries or `maxChars` of content already wait. */
  add(entry: T): boolean {
    if (!fitsQueue(this.#waiting.length, this.#chars, entry.size, this.limit, this.maxChars)) return false;
    this.#waiting.push(entry);
    this.#chars += entry.size;
    return true;
  }

  /** Removes and returns the first waiting entry. */
  next(): T | undefined {
    const entry = this.#waiting.shift();
    if (entry) this.#chars -= entry.size;
    return entry;
  }

  /** Removes `entry` when it still waits; true when it did. */
  remove(entry: T): boolean {
    const index = this.#waiting.indexOf(entry);
    if (index < 0) return false;
    this.#waiting.splice(index, 1);
    this.#chars -= entry.size;
    return true;
  }

  /** Drops every waiting entry, or those of `clientId`, and tells each it was dropped. */
  drop(clientId?: string): void {
    const dropped = clientId === undefined ? this.#waiting : this.#waiting.filter((entry) => entry.clientId === clientId);
    this.#waiting = clientId === undefined ? [] : this.#waiting.filter((entry) => entry.clientId !== clientId);
    for (const entry of dropped) this.#chars -= entry.size;
    for (const entry of dropped) entry.settle(false);
  }
}
