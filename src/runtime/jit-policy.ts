/**
 * JavaScriptCore's JIT tier-up policy, on Bun only (a no-op on Node and Deno).
 *
 * Start-up runs a lot of code exactly once: module bodies, option parsing,
 * the SDK's wiring. Compiling it is wasted work and memory (the JIT's own
 * machine code pages are most of what start-up touches beyond the runtime),
 * so the executable starts with tier-up thresholds scaled up and puts the
 * normal policy back once the agent is interactive: when its first turn has
 * ended (a session's first prompt mostly runs code for the first time too),
 * two seconds after `initialize` in any case, or when `agent serve` listens.
 * @module
 */
import { setTimeout } from "node:timers";

/** How many times more reluctant the JIT is while starting (measured: fewer does not save the memory, more saves nothing further). */
export const START_JIT_POLICY = 8;

type JitControl = { unsafe?: { setJITPolicy?: (scale: number) => void } };
const bun = (globalThis as { Bun?: JitControl }).Bun;

function setPolicy(scale: number): void {
  try {
    bun?.unsafe?.setJITPolicy?.(scale);
  } catch {
    // An older Bun without a usable policy control keeps its default: only speed and memory differ.
  }
}

/** Whether start-up made the JIT reluctant and it is still so (never true in an embedder's process: its JIT is its own). */
let reluctant = false;

/** Called first thing by the executable's entry point, never by the library. */
export function startWithReluctantJit(): void {
  reluctant = bun !== undefined;
  setPolicy(START_JIT_POLICY);
}

/** Normal tier-up from now on, if start-up changed it (idempotent). */
export function restoreNormalJit(): void {
  if (!reluctant) return;
  reluctant = false;
  setPolicy(1);
}

/** Normal tier-up in `ms` at the latest, without keeping the process alive for it. */
export function restoreNormalJitWithin(ms: number): void {
  if (reluctant) setTimeout(restoreNormalJit, ms).unref();
}
