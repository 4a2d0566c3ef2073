/**
 * Long synchronous loops (matching every line of every file) give the event
 * loop a turn every few milliseconds, so a `session/cancel`, a health check
 * or another session's traffic is never held up behind them, and an abort
 * stops the loop at the next turn.
 * @module
 */
import { throwIfAborted } from "./file-walker.ts";

/** How long a loop may run before it lets other work in. */
export const SLICE_MS = 10;

/** Call `pause()` between units of work; it yields when the slice is used up, then throws if aborted. */
export interface TimeSlicer {
  pause(): Promise<void>;
}

/** A slicer for one loop; the first slice starts now. */
export function timeSlicer(signal: AbortSignal | undefined, sliceMs = SLICE_MS): TimeSlicer {
  let sliceStart = performance.now();
  return {
    async pause() {
      if (performance.now() - sliceStart < sliceMs) return;
      // A macrotask, not a microtask: incoming messages and timers only run between macrotasks.
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      throwIfAborted(signal);
      sliceStart = performance.now();
    },
  };
}
