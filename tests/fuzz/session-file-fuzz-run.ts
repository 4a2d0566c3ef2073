/**
 * The session-file fuzzer from the command line, any count:
 *
 *   FUZZ_SEED=7 FUZZ_COUNT=100000 bun tests/fuzz/session-file-fuzz-run.ts
 *
 * FUZZ_SEED (default: from the clock, printed), FUZZ_COUNT (default 2000),
 * FUZZ_FULL_EVERY (a full session/load plus a turn every n cases; default
 * 50, 0 = reader only), FUZZ_CASE (replay one case of the seed). Prints
 * cases, seconds and peak RSS; exits 1 with the seed and the minimal
 * mutations when an invariant breaks.
 */
import { envInt, runSessionFileCampaign } from "./session-file-harness.ts";
import { SessionFileFuzzFailure } from "./session-file-fuzzer.ts";

const seed = envInt("FUZZ_SEED", Date.now() % 2 ** 31);
const count = envInt("FUZZ_COUNT", 2000);
const fullEvery = envInt("FUZZ_FULL_EVERY", 50);
const onlyCase = process.env.FUZZ_CASE ? envInt("FUZZ_CASE", 0) : undefined;

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
const started = performance.now();
console.log(`session-file fuzz: FUZZ_SEED=${seed} FUZZ_COUNT=${count} FUZZ_FULL_EVERY=${fullEvery}${onlyCase !== undefined ? ` FUZZ_CASE=${onlyCase}` : ""}`);
try {
  const onProgress = (done: number) => console.log(`  ${done} cases, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const report = await runSessionFileCampaign({ seed, count, fullEvery, onProgress, ...(onlyCase !== undefined ? { onlyCase } : {}) });
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `ok: ${report.cases} cases (${report.fullChecks} full loads + turns), ${report.skippedEntries} damaged entries skipped, ` +
      `${report.corruptFiles} corrupt headers refused; ${seconds.toFixed(1)} s; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
  );
} catch (error) {
  console.error(error instanceof SessionFileFuzzFailure ? error.message : error);
  process.exitCode = 1;
} finally {
  clearInterval(sampler);
}
