/**
 * The `.gitignore` differential fuzzer at CI size: 400 seeded repositories
 * (FUZZ_SEED and FUZZ_COUNT override), each walked and compared with
 * `git check-ignore --no-index`. See gitignore-fuzz.ts for longer runs.
 */
import { expect, test } from "bun:test";
import { describeMismatch, runGitignoreCampaign } from "./gitignore-fuzz.ts";

const envInt = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

test("the walk leaves out exactly what git ignores, for random ignore files and trees", async () => {
  const seed = envInt("FUZZ_SEED", 20261202);
  const count = envInt("FUZZ_COUNT", 400);
  const result = await runGitignoreCampaign(seed, count);
  expect(result.mismatch ? describeMismatch(seed, result.mismatch) : "no mismatch").toBe("no mismatch");
  expect(result.cases).toBe(count);
  expect(result.paths).toBeGreaterThan(count * 10);
}, 300_000);
