/**
 * The session-file fuzzer at CI size: 2,000 seeded mutations of a real
 * session file (FUZZ_SEED and FUZZ_COUNT override), a full session/load
 * plus a new turn on every 50th. See session-file-fuzz-run.ts for longer runs.
 */
import { expect, test } from "bun:test";
import { envInt, runSessionFileCampaign } from "./session-file-harness.ts";

test("session files survive random damage: load never throws, intact entries are kept, the session goes on", async () => {
  const count = envInt("FUZZ_COUNT", 2000);
  const report = await runSessionFileCampaign({ seed: envInt("FUZZ_SEED", 20261130), count, fullEvery: 50 });
  expect(report.cases).toBe(count);
  expect(report.fullChecks).toBe(Math.ceil(count / 50));
  // The mutations reach the schemas, not only the JSON parser.
  expect(report.skippedEntries).toBeGreaterThan(0);
}, 120_000);
