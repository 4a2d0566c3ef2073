/**
 * JavaScriptCore's JIT tier-up policy, on Bun only (a no-op on Node and Deno).
 *
 * Start-up runs a lot of code exactly once: module bodies, option parsing,
 * the SDK's wiring. Compiling it is wasted work and memory (the JIT's own
 * machine code pages are most of what start-up touches beyond the runtime),
 * so the executable starts with tier-up thresholds scaled up and puts the
 * normal policy back once the agent is interactive, before any turn streams.
 * @module
 */

/** How many times more reluctant the JIT is while starting (measured: fewer does not save the memory, more saves nothing further). */
export const START_JIT_POLICY = 8;

type JitControl = { unsafe?: { setJITPolicy?: (scale: number) => void } };

function setPolicy(scale: number): void {
  const bun = (globalThis as { Bun?: JitControl }).Bun;
  try {
    bun?.unsafe?.setJITPolicy?.(scale);
  } catch {
    // An older Bun without a usable policy control keeps its default: only speed and memory differ.
  }
}

/** Called first thing by the executable's entry point (never by the library: an embedder's JIT is its own). */
export function startWithReluctantJit(): void {
  setPolicy(START_JIT_POLICY);
}

let restored = false;

/** Once the agent answers its first request (stdio) or listens (serve): normal tier-up, so turns stream at full speed. */
export function restoreNormalJit(): void {
  if (restored) return;
  restored = true;
  setPolicy(1);
}
