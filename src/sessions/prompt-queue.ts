/**
 * The prompts waiting for a session's one turn: first come, first served,
 * with a bound. A waiting prompt is told once whether its turn came
 * (`true`) or it was dropped (`false`: cancelled, its client left, the
 * session closed).
 * @module
 */

/** Prompts a session keeps waiting behind the running turn; one more is refused. */
export const PROMPT_QUEUE_LIMIT = 16;

/** One prompt (or command, or turn started by steering) waiting for the turn. */
export interface Waiting {
  /** The connection that sent it. */
  readonly clientId: string;
  /** Settles its wait: true when its turn came, false when it was dropped. Only the first call counts. */
  settle(started: boolean): void;
}

/** A FIFO of waiting prompts. */
export class PromptQueue<T extends Waiting> {
  readonly limit: number;
  #waiting: T[] = [];

  constructor(limit = PROMPT_QUEUE_LIMIT) {
    this.limit = limit;
  }

  /** How many wait. */
  get size(): number {
    return this.#waiting.length;
  }

  /** Adds `entry` at the end; false (and nothing added) when the queue is full. */
  add(entry: T): boolean {
    if (this.#waiting.length >= this.limit) return false;
    this.#waiting.push(entry);
    return true;
  }

  /** Removes and returns the first waiting entry. */
  next(): T | undefined {
    return this.#waiting.shift();
  }

  /** Removes `entry` when it still waits; true when it did. */
  remove(entry: T): boolean {
    const index = this.#waiting.indexOf(entry);
    if (index < 0) return false;
    this.#waiting.splice(index, 1);
    return true;
  }

  /** Drops every waiting entry, or those of `clientId`, and tells each it was dropped. */
  drop(clientId?: string): void {
    const dropped = clientId === undefined ? this.#waiting : this.#waiting.filter((entry) => entry.clientId === clientId);
    this.#waiting = clientId === undefined ? [] : this.#waiting.filter((entry) => entry.clientId !== clientId);
    for (const entry of dropped) entry.settle(false);
  }
}
