// What the sandbox adds to each command: one agent process per mode runs a scripted turn of
// `--commands N` (default 20) `bash` calls of `true`, one after another, in `yolo` (never sandboxed)
// and in `auto` (each command under bubblewrap), turns interleaved; the turn's time divided by N is the
// time per command. Printed per runtime: both figures, the difference and the ratio (sandboxed /
// unsandboxed), medians of `--runs` turns (default 5) after one warm-up turn each. The faux model
// answers at once, so the time per command is the agent running it: spawn, wait, result.
// Usage: npm run build && node bench/sandbox-cost.mjs [--runs N] [--commands N] [--bun] [--deno]   (Linux with bubblewrap)
import { comparePerCall, perCallOptions } from "./per-call-cost.mjs";

const options = perCallOptions(process.argv.slice(2));
for (const target of options.targets) {
  const { a: plain, b: confined } = await comparePerCall(target, options, { mode: "yolo" }, { mode: "auto" });
  console.log(
    `${target.name}: per command ${plain.toFixed(2)} ms unsandboxed, ${confined.toFixed(2)} ms sandboxed: +${(confined - plain).toFixed(2)} ms, ratio ${(confined / plain).toFixed(2)} (median of ${options.runs} turns of ${options.commands} commands)`,
  );
}
