/**
 * One abort signal that two others may fire: a request and the end of its
 * client's input, or a turn's cancel and a deadline.
 * @module
 */

/**
 * A signal that fires when either does, `release` to let go of both and
 * `releaseFirst` to stop following `a` alone. Not
 * `AbortSignal.any`: on Node 20 every signal it makes stays reachable from a
 * long-lived source (a connection's), with all it holds, until that source
 * is collected: one per prompt for as long as the client stays. And a source
 * only `AbortSignal.any` follows is not kept alive: an `AbortSignal.timeout`
 * among them can be collected and then never fires.
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release(): void; releaseFirst(): void } {
  const controller = new AbortController();
  const onA = () => controller.abort(a.reason);
  const onB = () => controller.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  else {
    a.addEventListener("abort", onA, { once: true });
    b.addEventListener("abort", onB, { once: true });
  }
  return {
    signal: controller.signal,
    release() {
      a.removeEventListener("abort", onA);
      b.removeEventListener("abort", onB);
    },
    releaseFirst() {
      a.removeEventListener("abort", onA);
    },
  };
}

