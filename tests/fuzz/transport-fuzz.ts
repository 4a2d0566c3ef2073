/**
 * The transport fuzz loop: generate inputs from (seed, index), send them in
 * batches to one agent process, check the invariants after every batch, run
 * a normal turn at the end, and on a finding shrink the input sequence
 * (bounded in time) to a minimal one that still shows it.
 */
import { makeSandbox, type RuntimeName } from "../helpers/agent-process.ts";
import { Prng } from "./transport-prng.ts";
import type { GenerateOptions } from "./transport-rpc-inputs.ts";
import { generateStdioInput, StdioTarget } from "./transport-stdio-target.ts";
import type { Finding, FuzzTarget } from "./transport-target.ts";
import { describeInput, generateWsInput, WsTarget } from "./transport-ws-target.ts";

/** The transports one run can drive. */
export type TransportName = "stdio-ndjson" | "stdio-content-length" | "ws";

/** What to fuzz and how hard. */
export interface FuzzOptions {
  seed: number;
  count: number;
  runtime: RuntimeName;
  transport: TransportName;
  /** Leave out the known bug classes (bad-envelope requests, bad WebSocket frames). */
  excludeKnown: boolean;
  /** The input indices to send (default 0…count-1). */
  inputs?: number[];
  /** A reproduction: send `inputs` in one batch and do not shrink. */
  replay?: boolean;
  /** Longest wait for owed answers at a checkpoint. */
  timeoutMs: number;
  /** After a finding, restart the agent and go on (for long runs that count findings). */
  keepGoing?: boolean;
  /** Resident memory the agent may use, in MiB. */
  maxRssMb: number;
  /** Time budget for shrinking a finding. */
  shrinkSeconds: number;
  log(line: string): void;
}

/** What a run did. */
export interface FuzzResult {
  runtime: RuntimeName;
  transport: TransportName;
  seed: number;
  inputs: number;
  seconds: number;
  peakRssBytes: number;
  /** The first finding. */
  finding?: Finding;
  /** Every finding (more than one only with `keepGoing`). */
  findings: Finding[];
  /** The smallest input sequence found that still shows the first finding. */
  minimal?: number[];
  /** The command that replays the minimal sequence. */
  reproduce?: string;
}

const generateOptions = (o: FuzzOptions): GenerateOptions => ({ excludeKnown: o.excludeKnown, maxBodyBytes: 16 * 1024 * 1024 });

/** Batch sizes vary (1…120) so answers race each other in different ways. */
function batchSize(seed: number, batch: number): number {
  const rng = new Prng(seed, batch, 7);
  return rng.weighted([[2, 1], [5, rng.range(2, 20)], [5, rng.range(20, 120)]]);
}

interface Session {
  target: FuzzTarget<unknown>;
  finding?: Finding;
}

async function startTarget(o: FuzzOptions, sandbox: ReturnType<typeof makeSandbox>): Promise<Session> {
  if (o.transport === "ws") {
    const { target, finding } = await WsTarget.start(o.runtime, sandbox, o.seed, o.timeoutMs);
    return { target: target as FuzzTarget<unknown>, finding };
  }
  const framing = o.transport === "stdio-ndjson" ? "ndjson" : "content-length";
  const { target, finding } = await StdioTarget.start(o.runtime, framing, sandbox, o.timeoutMs);
  return { target: target as FuzzTarget<unknown>, finding };
}

function inputAt(o: FuzzOptions, index: number): unknown {
  return o.transport === "ws" ? generateWsInput(o.seed, index, generateOptions(o)) : generateStdioInput(o.seed, index, generateOptions(o));
}

/**
 * Sends `indices` to a fresh agent in batches, checking after each; then the
 * final turn and a clean exit. Returns the finding, the indices sent before
 * it, and the figures.
 */
async function runSequence(o: FuzzOptions, indices: number[], batches: boolean, progress?: (done: number) => void): Promise<{ finding?: Finding; sent: number[]; peakRssBytes: number }> {
  const sandbox = makeSandbox();
  sandbox.write("project/a.txt", "hello\n");
  // Linked by expansion-heavy messages (see expansionInput): just under the 2 MiB a linked file may have.
  sandbox.write("project/big.txt", "0123456789abcdef\n".repeat(Math.floor((2 * 1024 * 1024 - 1) / 17)));
  let target: FuzzTarget<unknown> | undefined;
  const sent: number[] = [];
  let peak = 0;
  try {
    const started = await startTarget(o, sandbox);
    target = started.target;
    if (started.finding) return { finding: started.finding, sent, peakRssBytes: target.peakRss() };
    let batch = 0;
    let inBatch = 0;
    let limit = batches ? batchSize(o.seed, batch) : Number.POSITIVE_INFINITY;
    for (let k = 0; k < indices.length; k++) {
      const index = indices[k]!;
      await target.send(inputAt(o, index), index);
      sent.push(index);
      inBatch++;
      if (inBatch >= limit || k === indices.length - 1) {
        const finding = await target.checkpoint(o.timeoutMs);
        peak = Math.max(peak, target.peakRss());
        const rss = target.rss();
        if (finding) return { finding, sent, peakRssBytes: peak };
        if (rss > o.maxRssMb * 1024 * 1024) return { finding: { kind: "memory", detail: `resident memory ${(rss / 2 ** 20).toFixed(0)} MiB exceeds ${o.maxRssMb} MiB` }, sent, peakRssBytes: peak };
        batch++;
        inBatch = 0;
        limit = batches ? batchSize(o.seed, batch) : Number.POSITIVE_INFINITY;
        progress?.(k + 1);
      }
    }
    const final = await target.finalTurn(o.timeoutMs);
    peak = Math.max(peak, target.peakRss());
    if (final) return { finding: final, sent, peakRssBytes: peak };
    const stopped = await target.stop(Math.max(o.timeoutMs, 15_000));
    return { finding: stopped, sent, peakRssBytes: peak };
  } finally {
    target?.kill();
    sandbox.cleanup();
  }
}

/** Shrinks `indices` while the same kind of finding still shows, within the time budget. */
async function shrink(o: FuzzOptions, indices: number[], kind: Finding["kind"]): Promise<number[]> {
  const deadline = Date.now() + o.shrinkSeconds * 1000;
  // A wedge shows as a timeout: trials wait less, answers normally take milliseconds.
  const trial = { ...o, timeoutMs: Math.min(o.timeoutMs, 4000) };
  const fails = async (candidate: number[]) => {
    if (Date.now() > deadline) return false;
    const { finding } = await runSequence(trial, candidate, false);
    return finding?.kind === kind;
  };
  // The culprit is most often near the end: try growing tails first.
  let current = indices;
  for (let tail = 1; tail < indices.length; tail *= 4) {
    const candidate = indices.slice(-tail);
    if (await fails(candidate)) {
      current = candidate;
      break;
    }
    if (Date.now() > deadline) return current;
  }
  // Then drop chunks, halving the chunk size (a simple delta debugging).
  for (let size = Math.ceil(current.length / 2); size >= 1 && Date.now() < deadline; size = size === 1 ? 0 : Math.ceil(size / 2)) {
    for (let start = 0; start < current.length && current.length > 1 && Date.now() < deadline; ) {
      const candidate = [...current.slice(0, start), ...current.slice(start + size)];
      if (candidate.length > 0 && (await fails(candidate))) current = candidate;
      else start += size;
    }
  }
  return current;
}

/** The command line that replays `indices`. */
function reproduceCommand(o: FuzzOptions, indices: number[]): string {
  return `npm run fuzz -- --seed ${o.seed} --runtime ${o.runtime} --transport ${o.transport}${o.excludeKnown ? " --exclude-known" : ""} --inputs ${indices.join(",")}`;
}

/** Shrinks one finding, logs it with its reproduction, and returns the minimal sequence. */
async function report(o: FuzzOptions, finding: Finding, sent: number[]): Promise<{ minimal: number[]; reproduce: string }> {
  o.log(`FINDING (${finding.kind}) on ${o.runtime} ${o.transport}, seed ${o.seed}, after ${sent.length} inputs of this process: ${finding.detail}`);
  let minimal = sent;
  if (!o.replay && o.shrinkSeconds > 0 && sent.length > 0) {
    o.log(`  shrinking (at most ${o.shrinkSeconds} s)…`);
    minimal = await shrink(o, sent, finding.kind);
  }
  const reproduce = reproduceCommand(o, minimal);
  o.log(`  minimal input sequence (${minimal.length}):`);
  for (const index of minimal.slice(0, 30)) o.log(`    #${index} ${describeInput(inputAt(o, index))}`);
  if (minimal.length > 30) o.log(`    … ${minimal.length - 30} more`);
  o.log(`  reproduce: ${reproduce}`);
  return { minimal, reproduce };
}

/**
 * Runs one fuzz campaign (or one reproduction with `inputs`) and reports.
 * With `keepGoing`, a finding restarts the agent and the run goes on with
 * the next input; each kind of finding is shrunk once.
 */
export async function fuzzTransport(o: FuzzOptions): Promise<FuzzResult> {
  const started = performance.now();
  const indices = o.inputs ?? Array.from({ length: o.count }, (_, i) => i);
  const result: FuzzResult = { runtime: o.runtime, transport: o.transport, seed: o.seed, inputs: 0, seconds: 0, peakRssBytes: 0, findings: [] };
  const shrunk = new Set<string>();
  let nextReport = 0.1;
  let remaining = indices;
  while (remaining.length > 0) {
    const before = result.inputs;
    const run = await runSequence(o, remaining, !o.replay, (done) => {
      if ((before + done) / indices.length < nextReport) return;
      nextReport += 0.1;
      const seconds = (performance.now() - started) / 1000;
      o.log(`  ${o.runtime} ${o.transport}: ${before + done}/${indices.length} inputs, ${seconds.toFixed(1)} s, ${((before + done) / seconds).toFixed(0)}/s`);
    });
    result.inputs += run.sent.length;
    result.peakRssBytes = Math.max(result.peakRssBytes, run.peakRssBytes);
    if (!run.finding) break;
    result.findings.push(run.finding);
    if (!result.finding) result.finding = run.finding;
    if (!shrunk.has(run.finding.kind)) {
      shrunk.add(run.finding.kind);
      const { minimal, reproduce } = await report(o, run.finding, run.sent);
      if (!result.minimal) Object.assign(result, { minimal, reproduce });
    } else {
      o.log(`FINDING (${run.finding.kind}) again after input #${run.sent.at(-1) ?? "?"}: ${run.finding.detail.slice(0, 200)}`);
    }
    if (!o.keepGoing) break;
    // The process that showed it is gone; a new one takes the inputs after the last one sent.
    remaining = remaining.slice(Math.max(run.sent.length, 1));
  }
  result.seconds = (performance.now() - started) / 1000;
  return result;
}
