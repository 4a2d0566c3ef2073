/**
 * JavaScriptCore's JIT tier-up policy, on Bun only (a no-op on Node and Deno).
 *
 * Start-up runs a lot of code exactly once: module bodies, option parsing,
 * the SDK's wiring. Compiling it is wasted work and memory (the JIT's own
 * machine code pages are most of what start-up touches beyond the runtime),
 * so the executable starts with tier-up thresholds scaled up and lowers them
 * once the agent is interactive: when its first turn has ended (a session's
 * first prompt mostly runs code for the first time too), two seconds after
 * `initialize` in any case, or when `agent serve` listens. Lowered to a
 * quarter of the start-up scale, not to JavaScriptCore's default: at the
 * default, what the first turns ran crosses its thresholds together and the
 * next prompt waits for a burst of compiles (a second prompt 9.5 ms instead
 * of 4.8 on the binary, a short prompt after long answers 11 instead of 4),
 * while code that is really hot, a long answer's per-update path, still
 * compiles early enough that long turns take as long as before.
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
/** Its reluctance once interactive (1 is JavaScriptCore's default; measured: 2 and 1 bring the compile bursts back). */
export const INTERACTIVE_JIT_POLICY = 4;

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

/** The interactive tier-up policy from now on, if start-up changed it (idempotent). */
export function restoreInteractiveJit(): void {
  if (!reluctant) return;
  reluctant = false;
  setPolicy(INTERACTIVE_JIT_POLICY);
}

/** The interactive tier-up policy in `ms` at the latest, without keeping the process alive for it. */
export function restoreInteractiveJitWithin(ms: number): void {
  if (reluctant) setTimeout(restoreInteractiveJit, ms).unref();
}
