/**
 * A signal that aborts when the caller's does or a deadline passes, on a
 * timer this module owns and clears. Not `AbortSignal.any` with
 * `AbortSignal.timeout`: on Node 20 the timeout signal is only weakly held
 * there, so after a garbage collection it never fires and the work it
 * bounds (a server sending a byte a second) runs on without end.
 * @module
 */
import { clearTimeout, setTimeout } from "node:timers";
import { eitherSignal } from "./either-signal.ts";

export interface DeadlineSignal {
  signal: AbortSignal;
  /** Whether it was the deadline (not the caller) that aborted. */
  timedOut(): boolean;
  /** Stops the timer and lets go of the caller's signal; call it when the work is done. */
  release(): void;
}

/** `signal` or `ms` milliseconds, whichever comes first; the deadline aborts with a `TimeoutError`. */
export function withDeadline(signal: AbortSignal, ms: number): DeadlineSignal {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException(`The operation took longer than ${ms} ms.`, "TimeoutError")), ms);
  const either = eitherSignal(signal, deadline.signal);
  return {
    signal: either.signal,
    timedOut: () => deadline.signal.aborted && !signal.aborted,
    release() {
      clearTimeout(timer);
      either.release();
    },
  };
}
