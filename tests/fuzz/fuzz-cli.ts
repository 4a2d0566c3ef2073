/**
 * `npm run fuzz -- [options]`: seeded, reproducible fuzzing.
 *
 *   --target transport|session-file|queue-steer|html   what to fuzz (default transport);
 *                     queue-steer: --count is scenarios, --inputs replays scenarios, stdio = one transport;
 *                     html: --count is hostile pages through the fetch tool's converter (in this process)
 *   --seed N          seed (default: random, printed)         env FUZZ_SEED
 *   --count N         inputs per runtime and transport (1000)  env FUZZ_COUNT
 *   --runtime LIST    node,bun,deno or all (all)               env FUZZ_RUNTIME
 *   --transport LIST  stdio (= stdio-ndjson + stdio-content-length, half the
 *                     count each), stdio-ndjson, stdio-content-length, ws, or all (all)
 *                                                              env FUZZ_TRANSPORT
 *   --exclude-known   leave out the known bug classes          env FUZZ_EXCLUDE_KNOWN=1
 *   --keep-going      after a finding, restart the agent and go on (counts findings)
 *   --inputs I,J,…    replay exactly these inputs (a reproduction) of one runtime and transport
 *   --timeout-ms N    longest wait for owed answers (10000)
 *   --max-rss-mb N    memory bound for the agent (1024)
 *   --shrink-seconds N  time budget for shrinking a finding (120)
 *
 * Node runs the built dist/cli.js (run `npm run build` first; `npm run fuzz`
 * does), Bun and Deno run mod.ts. Exit code 1 when anything was found.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT, type RuntimeName } from "../helpers/agent-process.ts";
import { runHtmlCampaign } from "./html-fuzz.ts";
import { fuzzQueueSteer, type QueueSteerResult } from "./queue-steer-fuzzer.ts";
import { fuzzTransport, type FuzzResult, type TransportName } from "./transport-fuzz.ts";

/** Parsed command line. */
export interface FuzzArgs {
  target: string;
  seed: number;
  count: number;
  runtimes: RuntimeName[];
  transports: TransportName[];
  excludeKnown: boolean;
  keepGoing: boolean;
  inputs?: number[];
  timeoutMs: number;
  maxRssMb: number;
  shrinkSeconds: number;
}

const RUNTIMES: RuntimeName[] = ["node", "bun", "deno"];
const TRANSPORTS: TransportName[] = ["stdio-ndjson", "stdio-content-length", "ws"];

function usage(message: string): never {
  console.error(`fuzz: ${message}`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) usage(`${name} must be a non-negative integer, got ${JSON.stringify(value)}`);
  return n;
}

/** Reads options from argv, then the FUZZ_* environment variables. */
export function parseFuzzArgs(argv: string[], env: Record<string, string | undefined>): FuzzArgs {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) usage(`unexpected argument ${JSON.stringify(arg)}`);
    const [name, inline] = arg.slice(2).split("=", 2) as [string, string | undefined];
    if (name === "exclude-known" || name === "keep-going") flags.set(name, "1");
    else if (inline !== undefined) flags.set(name, inline);
    else if (i + 1 < argv.length) flags.set(name, argv[++i]!);
    else usage(`--${name} needs a value`);
  }
  const known = new Set(["target", "seed", "count", "runtime", "transport", "exclude-known", "keep-going", "inputs", "timeout-ms", "max-rss-mb", "shrink-seconds"]);
  for (const name of flags.keys()) if (!known.has(name)) usage(`unknown option --${name}`);
  const pick = (name: string, envName: string) => flags.get(name) ?? env[envName];
  const list = <T extends string>(value: string | undefined, all: T[], aliases: Record<string, T[]>, what: string): T[] => {
    if (!value || value === "all") return all;
    return value.split(",").flatMap((v) => aliases[v] ?? (all.includes(v as T) ? [v as T] : usage(`unknown ${what} ${JSON.stringify(v)}`)));
  };
  const seedText = pick("seed", "FUZZ_SEED");
  const inputs = flags.get("inputs")?.split(",").filter(Boolean).map((v) => integer("--inputs", v, 0));
  return {
    target: pick("target", "FUZZ_TARGET") ?? "transport",
    seed: integer("--seed", seedText, Math.floor(Math.random() * 2 ** 31)),
    count: integer("--count", pick("count", "FUZZ_COUNT"), 1000),
    runtimes: list(pick("runtime", "FUZZ_RUNTIME"), RUNTIMES, {}, "runtime"),
    transports: list(pick("transport", "FUZZ_TRANSPORT"), TRANSPORTS, { stdio: ["stdio-ndjson", "stdio-content-length"] }, "transport"),
    excludeKnown: pick("exclude-known", "FUZZ_EXCLUDE_KNOWN") === "1",
    keepGoing: flags.get("keep-going") === "1",
    ...(inputs ? { inputs } : {}),
    timeoutMs: integer("--timeout-ms", flags.get("timeout-ms"), 10_000),
    maxRssMb: integer("--max-rss-mb", flags.get("max-rss-mb"), 1024),
    shrinkSeconds: integer("--shrink-seconds", flags.get("shrink-seconds"), 120),
  };
}

/**
 * Indices a transport gets from a count: the two stdio framings split it
 * (first and second half), so `--transport stdio --count N` sends N inputs.
 */
export function countFor(args: FuzzArgs, transport: TransportName): { first: number; count: number } {
  const bothStdio = args.transports.includes("stdio-ndjson") && args.transports.includes("stdio-content-length");
  if (!bothStdio || transport === "ws") return { first: 0, count: args.count };
  const half = Math.ceil(args.count / 2);
  return transport === "stdio-ndjson" ? { first: 0, count: half } : { first: half, count: args.count - half };
}

/** Runs the transport fuzzer over every selected runtime and transport. */
export async function runTransportFuzz(args: FuzzArgs, log: (line: string) => void): Promise<FuzzResult[]> {
  const results: FuzzResult[] = [];
  for (const runtime of args.runtimes) {
    for (const transport of args.transports) {
      const { first, count } = countFor(args, transport);
      const inputs = args.inputs ?? Array.from({ length: count }, (_, i) => first + i);
      log(`fuzz: ${runtime} ${transport}, seed ${args.seed}, ${inputs.length} inputs${args.excludeKnown ? " (known bug classes excluded)" : ""}`);
      const result = await fuzzTransport({
        seed: args.seed,
        count: inputs.length,
        inputs,
        replay: args.inputs !== undefined,
        runtime,
        transport,
        excludeKnown: args.excludeKnown,
        keepGoing: args.keepGoing,
        timeoutMs: args.timeoutMs,
        maxRssMb: args.maxRssMb,
        shrinkSeconds: args.shrinkSeconds,
        log,
      });
      results.push(result);
      log(`fuzz: ${runtime} ${transport}: ${result.inputs} inputs, ${result.seconds.toFixed(1)} s, peak RSS ${(result.peakRssBytes / 2 ** 20).toFixed(0)} MiB, ${result.findings.length ? `${result.findings.length} finding(s)` : "no findings"}`);
    }
  }
  return results;
}

/** Runs the queueing and steering fuzzer: `count` scenarios per runtime over stdio and/or WebSocket `/apc`. */
export async function runQueueSteerFuzz(args: FuzzArgs, log: (line: string) => void): Promise<QueueSteerResult[]> {
  const transports = [...new Set(args.transports.map((t) => (t === "ws" ? "ws" : "stdio")))] as ("stdio" | "ws")[];
  const results: QueueSteerResult[] = [];
  for (const runtime of args.runtimes) {
    for (const transport of transports) {
      log(`fuzz: queueing and steering, ${runtime} ${transport}, seed ${args.seed}, ${args.count} scenarios`);
      const result = await fuzzQueueSteer({ seed: args.seed, count: args.count, ...(args.inputs ? { scenarios: args.inputs } : {}), runtime, transport, timeoutMs: args.timeoutMs, log });
      results.push(result);
      log(`fuzz: ${runtime} ${transport}: ${result.scenarios} scenarios, ${result.actions} actions, ${result.seconds.toFixed(1)} s, ${result.findings.length ? `${result.findings.length} finding(s)` : "no findings"}`);
    }
  }
  return results;
}

/** A Markdown table of queueing and steering results, with how often each interleaving came up. */
export function queueSteerTable(results: QueueSteerResult[]): string {
  const rows = results.map((r) => {
    const seen = Object.entries(r.coverage).sort(([a], [b]) => a.localeCompare(b)).map(([what, n]) => `${what}: ${n}`).join(", ");
    return `| ${r.runtime} | ${r.transport} | ${r.scenarios} | ${r.actions} | ${r.seconds.toFixed(1)} | ${r.findings.length || "none"} | ${seen} |`;
  });
  return ["| runtime | transport | scenarios | actions | seconds | findings | what came up |", "|---|---|---|---|---|---|---|", ...rows].join("\n");
}

function summarizeKinds(r: FuzzResult): string {
  const counts = new Map<string, number>();
  for (const f of r.findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  const first = r.finding!.detail.split("\n")[0]!.slice(0, 100);
  return `${[...counts].map(([k, n]) => `${n}× ${k}`).join(", ")} (first: ${first})`;
}

/**
 * Hands `--target session-file` to the session-file fuzzer that lives next to
 * this file: its own script when there is one (same options), else its tests
 * under `bun test` with FUZZ_SEED and FUZZ_COUNT set.
 */
async function runSessionFileFuzz(args: FuzzArgs): Promise<number> {
  const folder = join(ROOT, "tests", "fuzz");
  const script = ["session-file-fuzz.ts", "session-file-fuzzer.ts", "session-file-cli.ts"].map((name) => join(folder, name)).find(existsSync);
  const env = { ...process.env, FUZZ_SEED: String(args.seed), FUZZ_COUNT: String(args.count) };
  let command: string[];
  if (script) {
    const rest = process.argv.slice(2).filter((a, i, all) => a !== "--target" && all[i - 1] !== "--target" && !a.startsWith("--target="));
    command = [process.execPath, script, ...rest];
  } else {
    const tests = readdirSync(folder).filter((name) => name.startsWith("session-file-") && name.endsWith(".test.ts"));
    if (tests.length === 0) usage("the session-file fuzzer is not part of this checkout");
    command = [process.execPath, "test", "--timeout", "600000", ...tests.map((name) => join(folder, name))];
  }
  console.log(`fuzz: session files, seed ${args.seed}: ${command.slice(1).join(" ")}`);
  return await Bun.spawn(command, { cwd: ROOT, env, stdio: ["inherit", "inherit", "inherit"] }).exited;
}

/** A Markdown table of results. */
export function resultTable(results: FuzzResult[]): string {
  const rows = results.map((r) => `| ${r.runtime} | ${r.transport} | ${r.inputs} | ${r.seconds.toFixed(1)} | ${(r.peakRssBytes / 2 ** 20).toFixed(0)} | ${r.findings.length ? `${r.findings.length}: ${summarizeKinds(r)}` : "none"} |`);
  return ["| runtime | transport | inputs | seconds | peak RSS (MiB) | findings |", "|---|---|---|---|---|---|", ...rows].join("\n");
}

if (import.meta.main) {
  const args = parseFuzzArgs(process.argv.slice(2), process.env);
  if (args.target === "session-file") process.exit(await runSessionFileFuzz(args));
  if (args.target === "queue-steer") {
    const results = await runQueueSteerFuzz(args, (line) => console.log(line));
    console.log(`\nseed ${args.seed}\n${queueSteerTable(results)}`);
    process.exit(results.some((r) => r.findings.length > 0) ? 1 : 0);
  }
  if (args.target === "html") {
    const result = runHtmlCampaign(args.seed, args.count);
    console.log(`fuzz: hostile HTML, seed ${args.seed}, ${result.pages} pages (${result.kib.toFixed(0)} KiB), slowest ${result.worstMsPerKiB.toFixed(2)} ms/KiB, ${result.findings.length ? `${result.findings.length} finding(s)` : "no findings"}`);
    for (const finding of result.findings.slice(0, 10)) console.log(`  page ${finding.index}: ${finding.problems.slice(0, 3).join("; ")}`);
    process.exit(result.findings.length ? 1 : 0);
  }
  if (args.target !== "transport") usage(`unknown target ${JSON.stringify(args.target)} (transport, session-file, queue-steer or html)`);
  const results = await runTransportFuzz(args, (line) => console.log(line));
  console.log(`\nseed ${args.seed}\n${resultTable(results)}`);
  process.exit(results.some((r) => r.finding) ? 1 : 0);
}
