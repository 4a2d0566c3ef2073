/**
 * One abort signal that two sources may fire: a request and the end of its
 * client's input, or a turn's cancel and a deadline.
 * @module
 */

/**
 * Something that happens once and tells its followers, each removable on its
 * own (the end of a client's input): unlike an AbortSignal with a listener
 * per request, any number may follow without the runtimes' leak warning.
 */
export interface AbortSource {
  /** Calls `onAbort` when the source fires (at once if it has); returns the way to stop following. */
  follow(onAbort: (reason: unknown) => void): () => void;
}

/**
 * A signal that fires when either does, `release` to let go of both and
 * `releaseFirst` to stop following `first` alone. Not
 * `AbortSignal.any`: on Node 20 every signal it makes stays reachable from a
 * long-lived source (a connection's), with all it holds, until that source
 * is collected: one per prompt for as long as the client stays. And a source
 * only `AbortSignal.any` follows is not kept alive: an `AbortSignal.timeout`
 * among them can be collected and then never fires.
 */
export function eitherSignal(first: AbortSignal, second: AbortSignal | AbortSource): { signal: AbortSignal; release(): void; releaseFirst(): void } {
  const controller = new AbortController();
  const onFirst = () => controller.abort(first.reason);
  let unfollow = () => {};
  if (first.aborted) onFirst();
  else {
    unfollow = follow(second, (reason) => controller.abort(reason));
    if (!controller.signal.aborted) first.addEventListener("abort", onFirst, { once: true });
  }
  return {
    signal: controller.signal,
    release() {
      first.removeEventListener("abort", onFirst);
      unfollow();
    },
    releaseFirst() {
      first.removeEventListener("abort", onFirst);
    },
  };
}

function follow(source: AbortSignal | AbortSource, onAbort: (reason: unknown) => void): () => void {
  if (!(source instanceof AbortSignal)) return source.follow(onAbort);
  if (source.aborted) {
    onAbort(source.reason);
    return () => {};
  }
  const listener = () => onAbort(source.reason);
  source.addEventListener("abort", listener, { once: true });
  return () => source.removeEventListener("abort", listener);
}
