/**
 * Timers that never keep the process alive on their own. The global timers
 * of Deno return plain numbers without `unref`; those of `node:timers` have
 * it on every runtime.
 * @module
 */
import { clearInterval, clearTimeout, setImmediate, setInterval, setTimeout } from "node:timers";

/** Runs `callback` once after `ms` unless cancelled first, without holding the process open. */
export function deadlineInBackground(ms: number, callback: () => void): { cancel(): void } {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}

/** Runs `tick` every `ms` until stopped, without holding the process open. */
export function repeatInBackground(ms: number, tick: () => void): { stop(): void } {
  const timer = setInterval(tick, ms);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Runs `callback` once the current task of the event loop (and its microtasks) is done, before any timer. */
export function afterCurrentTask(callback: () => void): void {
  setImmediate(callback);
}
