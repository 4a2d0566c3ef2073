/**
 * The CI-sized queueing and steering fuzz run: for each runtime, 25 seeded
 * scenarios over stdio and 25 over a shared WebSocket `/apc` session (see
 * queue-steer-fuzzer.ts for what a scenario does and checks). A finding fails
 * the test with its seed, scenario and actions; FUZZ_SEED and FUZZ_COUNT
 * override the defaults (`npm run fuzz -- --target queue-steer` runs more).
 */
import { describe, expect, test } from "bun:test";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { parseFuzzArgs, queueSteerTable, runQueueSteerFuzz } from "./fuzz-cli.ts";

const SEED = process.env.FUZZ_SEED ?? "20261201";
const COUNT = process.env.FUZZ_COUNT ?? "25";

describe.each(RUNTIMES)("queueing and steering fuzz on %s", (runtime) => {
  test.each(["stdio", "ws"])(
    "%s: answers, model requests and the journal agree whatever the interleaving",
    async (transport) => {
      const args = parseFuzzArgs(["--target", "queue-steer", "--seed", SEED, "--count", COUNT, "--runtime", runtime, "--transport", transport], {});
      const lines: string[] = [];
      const results = await runQueueSteerFuzz(args, (line) => lines.push(line));
      const findings = results.flatMap((r) => r.findings);
      if (findings.length) console.error(lines.join("\n"));
      expect(findings).toEqual([]);
      expect(results.reduce((n, r) => n + r.scenarios, 0)).toBe(Number(COUNT));
      console.log(queueSteerTable(results));
    },
    600_000,
  );
});
