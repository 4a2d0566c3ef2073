/**
 * The end of a client's input, as every request of the connection follows
 * it: one event source holding its followers in a set, not an AbortSignal
 * with one listener per request, so that any number of waiting prompts
 * (the queue holds 16, steering adds more) neither trips the runtimes'
 * listener-leak warning nor keeps a listener past its request.
 * @module
 */
import type { AbortSource } from "../../runtime/either-signal.ts";

/** Happens once; each follower is told once, or at once when it follows after the end. */
export class InputEnd implements AbortSource {
  readonly #followers = new Set<(reason: unknown) => void>();
  #ended = false;
  #reason: unknown;

  get ended(): boolean {
    return this.#ended;
  }

  /** The input ended: tells every follower, once. */
  end(reason: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#reason = reason;
    const followers = [...this.#followers];
    this.#followers.clear();
    for (const follower of followers) follower(reason);
  }

  /** Calls `onEnd` when the input ends (at once if it has); returns the way to stop following. */
  follow(onEnd: (reason: unknown) => void): () => void {
    if (this.#ended) {
      onEnd(this.#reason);
      return () => {};
    }
    this.#followers.add(onEnd);
    return () => void this.#followers.delete(onEnd);
  }
}
