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
 *
 * zod is also told not to generate parsers (`jitless`, for good): it
 * compiles one function per object schema on its first synchronous parse,
 * which JavaScriptCore makes dearer than the parse it speeds up for schemas
 * run once per request (the protocol's requests), and the provider packages
 * validate streamed events asynchronously, where zod never uses them. On Bun
 * this took 4–18 ms off a first prompt and about 0.9 ms off later ones; on
 * Node (V8) it made no difference, so it is not done there.
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

/** Called first thing by the executable's entry point (before zod loads), never by the library. */
export function startWithReluctantJit(): void {
  if (!bun) return;
  reluctant = true;
  setPolicy(START_JIT_POLICY);
  // zod reads this object when its core module loads, and keeps it.
  const zodConfig = ((globalThis as { __zod_globalConfig?: { jitless?: boolean } }).__zod_globalConfig ??= {});
  zodConfig.jitless = true;
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
