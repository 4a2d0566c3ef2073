/**
 * One abort signal that two others may fire: a request and the end of its
 * client's input, or a turn's cancel and a deadline.
 * @module
 */
import type { InputEnd } from "./input-end.ts";

/**
 * A signal that fires when either does, `release` to let go of both and
 * `releaseFirst` to stop following `request` alone. Not
 * `AbortSignal.any`: on Node 20 every signal it makes stays reachable from a
 * long-lived source (a connection's), with all it holds, until that source
 * is collected: one per prompt for as long as the client stays. And a source
 * only `AbortSignal.any` follows is not kept alive: an `AbortSignal.timeout`
 * among them can be collected and then never fires.
 */
export function eitherSignal(request: AbortSignal, inputEnd: InputEnd): { signal: AbortSignal; release(): void; releaseFirst(): void } {
  const controller = new AbortController();
  const onRequest = () => controller.abort(request.reason);
  let unfollow = () => {};
  if (request.aborted) onRequest();
  else {
    unfollow = inputEnd.follow((reason) => controller.abort(reason));
    if (!controller.signal.aborted) request.addEventListener("abort", onRequest, { once: true });
  }
  return {
    signal: controller.signal,
    release() {
      request.removeEventListener("abort", onRequest);
      unfollow();
    },
    releaseFirst() {
      request.removeEventListener("abort", onRequest);
    },
  };
}
