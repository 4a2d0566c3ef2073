/**
 * The CI-sized transport fuzz run: for each runtime, 5,000 seeded inputs over
 * stdio (half NDJSON, half Content-Length) and 5,000 over WebSocket. A finding
 * fails the test with the seed and a shrunk input sequence to replay with
 * `npm run fuzz`. FUZZ_SEED and FUZZ_COUNT override the defaults;
 * FUZZ_EXCLUDE_KNOWN=1 leaves out the known bug classes (see docs/fuzzing.md).
 */
import { describe, expect, test } from "bun:test";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { parseFuzzArgs, resultTable, runTransportFuzz } from "./fuzz-cli.ts";

const SEED = process.env.FUZZ_SEED ?? "20261130";
const COUNT = process.env.FUZZ_COUNT ?? "5000";

describe.each(RUNTIMES)("transport fuzz on %s", (runtime) => {
  test.each(["stdio", "ws"])(
    "%s: every well-formed request answered once, nothing but JSON-RPC out, memory bounded, a normal turn at the end",
    async (transport) => {
      const args = parseFuzzArgs(["--seed", SEED, "--count", COUNT, "--runtime", runtime, "--transport", transport, "--shrink-seconds", "60"], { FUZZ_EXCLUDE_KNOWN: process.env.FUZZ_EXCLUDE_KNOWN });
      const lines: string[] = [];
      const results = await runTransportFuzz(args, (line) => lines.push(line));
      const findings = results.filter((r) => r.finding);
      if (findings.length) console.error(lines.filter((l) => !/^\s+\S+ \S+: \d+\/\d+ inputs/.test(l)).join("\n"));
      expect(findings.map((r) => `${r.transport}: ${r.finding!.kind}: ${r.finding!.detail.slice(0, 300)}\n  reproduce: ${r.reproduce}`)).toEqual([]);
      expect(results.reduce((n, r) => n + r.inputs, 0)).toBe(Number(COUNT));
      console.log(resultTable(results));
    },
    600_000,
  );
});

/**
 * Input sequences the fuzzer once found and shrank, replayed as they were:
 * each failed on the code before its fix.
 */
const FOUND: { seed: string; transport: string; inputs: string; what: string }[] = [
  {
    seed: "100000",
    transport: "ws",
    inputs: "10137,10142,10150,10154,10165,10166,10167,10178,10190,10191,10231,10242,10248,10253,10259,10260,10261,10267,10286,10289,10300,10301,10302",
    what: "a refused /apc join (hostile cwd) made the next connection's join fail with its error",
  },
  {
    seed: "100000",
    transport: "ws",
    inputs: "2959,2968,2971,2972,2980",
    what: "a session/fork still under way when its connection closed left the new session open for good",
  },
];

describe.each(RUNTIMES)("fuzz findings replayed on %s", (runtime) => {
  test.each(FOUND)("$what", async ({ seed, transport, inputs }) => {
    const args = parseFuzzArgs(["--seed", seed, "--runtime", runtime, "--transport", transport, "--inputs", inputs, "--shrink-seconds", "0"], {});
    const results = await runTransportFuzz(args, () => {});
    expect(results.filter((r) => r.finding).map((r) => `${r.finding!.kind}: ${r.finding!.detail.slice(0, 300)}`)).toEqual([]);
  }, 120_000);
});
