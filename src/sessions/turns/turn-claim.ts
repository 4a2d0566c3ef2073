/**
 * A claim on a session's one turn: a prompt, a built-in command or a turn
 * started by a steering message, from the moment it asks for the turn (and
 * perhaps waits in the queue) until its work is done.
 * @module
 */
import type { Waiting } from "./prompt-queue.ts";

/** One claim on a session's turn; see `LiveSession.claimTurn`. */
export class TurnClaim implements Waiting {
  readonly clientId: string;
  /** Whether messages may be steered into its turn: a prompt for the model, not a built-in command. */
  readonly steerable: boolean;
  /** Characters of its content, while it waits in the queue. */
  readonly size: number;
  /** Settles once: true when the claim holds the turn, false when it was dropped from the queue. */
  readonly started: Promise<boolean>;
  /** Settles once its work is done (or it was dropped). */
  readonly finished: Promise<void>;
  readonly #controller = new AbortController();
  #settle: ((started: boolean) => void) | undefined;
  #finish!: () => void;
  #turnEnded = false;
  #stopReason = "";

  constructor(clientId: string, steerable: boolean, size: number) {
    this.clientId = clientId;
    this.steerable = steerable;
    this.size = size;
    this.started = new Promise((resolve) => (this.#settle = resolve));
    this.finished = new Promise((resolve) => (this.#finish = resolve));
  }

  /** Aborted when this claim's turn is to stop (its request was cancelled, its client left, a session cancel). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Why the turn was stopped, for the engine's cancellation. */
  get stopReason(): string {
    return this.#stopReason;
  }

  /** Whether a message steered now would join this claim's turn at its next boundary. */
  get takesSteering(): boolean {
    return this.steerable && !this.#turnEnded && !this.#controller.signal.aborted;
  }

  settle(started: boolean): void {
    const settle = this.#settle;
    this.#settle = undefined;
    settle?.(started);
    if (!started) this.#finish();
  }

  /** Its work is done. */
  finish(): void {
    this.#finish();
  }

  /** Stops this claim's turn (a no-op once stopped). */
  abort(reason: string): void {
    if (this.#controller.signal.aborted) return;
    this.#stopReason = reason;
    this.#controller.abort(new DOMException(reason, "AbortError"));
  }

  /** Its model turn has given its last answer: later steering finds no turn to join. */
  endTurn(): void {
    this.#turnEnded = true;
  }
}
