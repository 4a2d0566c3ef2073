/**
 * The session-file fuzzer: damages a real session file in seeded, random
 * ways and checks what the agent makes of it.
 *
 * Every case: the file is read back through the JSONL store and the
 * restore/replay code that `session/load` runs. Invariants: nothing throws
 * (a damaged header may only make the store report the file corrupt); every
 * entry line that survived intact is restored, wherever the damage is; the
 * history and the replay are serialisable. Every `fullEvery`-th case also
 * runs `session/load` through the whole agent (ACP over NDJSON in this
 * process) and then a new turn, which must end normally.
 *
 * A failing case is shrunk to the fewest of its mutations that still fail,
 * and reported with the seed and case number that replay it.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { checkEntry } from "../../src/sessions/journal/session-entry-check.ts";
import { replayUpdates } from "../../src/acp/updates/session-replay.ts";
import { restoreState } from "../../src/sessions/journal/session-restore.ts";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";
import { StoreError, type SessionStore } from "../../src/store/types.ts";
// The SDK's own schema for `session/update`, to hold every replayed update to the protocol (not a public export).
import { zSessionNotification } from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import { acp } from "../helpers/acp-client.ts";
import type { CorpusSession } from "./session-file-corpus.ts";
import type { InProcessAgent } from "./session-file-agent.ts";
import { applyMutation, describeMutation, prng, randomMutation, splitLines, type Mutation } from "./session-file-mutations.ts";

export interface SessionFileFuzzOptions {
  seed: number;
  count: number;
  /** The session file the mutations start from. */
  corpus: CorpusSession;
  /** The directory the corpus session is stored in. */
  sessionDir: string;
  /** The whole agent, for the full checks; without it only the reader is checked. */
  agent?: InProcessAgent;
  /** Run the full check on every n-th case (0: never). */
  fullEvery: number;
  /** Only this case (a replay). */
  onlyCase?: number;
  /** At most this many mutations per case (default 3). */
  maxMutations?: number;
  /** Called after every 10,000 cases with the number done. */
  onProgress?: (done: number) => void;
}

export interface SessionFileFuzzReport {
  cases: number;
  fullChecks: number;
  /** Entries skipped as damaged, over all cases (shows the mutations reach the schemas). */
  skippedEntries: number;
  /** Cases whose header was damaged (the store refused the file as it should). */
  corruptFiles: number;
}

/** A broken invariant, with everything needed to replay it. */
export class SessionFileFuzzFailure extends Error {
  override name = "SessionFileFuzzFailure";
  constructor(
    readonly seed: number,
    readonly caseIndex: number,
    readonly reason: string,
    readonly mutations: Mutation[],
  ) {
    super(
      `session-file fuzz failure (FUZZ_SEED=${seed} FUZZ_CASE=${caseIndex}): ${reason}\n` +
        `minimal mutations (applied in order to the corpus session file):\n${mutations.map((m) => `  ${describeMutation(m)}`).join("\n")}`,
    );
  }
}

const decoder = new TextDecoder();

/** The mutations of case `index`: 1 to `max` of them, each drawn against the bytes the previous ones left. */
export function caseMutations(seed: number, index: number, original: Uint8Array, max = 3): Mutation[] {
  const random = prng((Math.imul(seed, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca77)) >>> 0);
  const count = 1 + Math.floor(random() * max);
  const mutations: Mutation[] = [];
  let bytes = original;
  for (let i = 0; i < count; i++) {
    const mutation = randomMutation(bytes, random);
    mutations.push(mutation);
    bytes = applyMutation(bytes, mutation);
  }
  return mutations;
}

function applyAll(original: Uint8Array, mutations: Mutation[]): Uint8Array {
  return mutations.reduce((bytes, mutation) => applyMutation(bytes, mutation), original);
}

/** Runs the fuzzer; throws SessionFileFuzzFailure on the first broken invariant. */
export async function runSessionFileFuzz(options: SessionFileFuzzOptions): Promise<SessionFileFuzzReport> {
  const { corpus, seed } = options;
  const store = createJsonlStore(options.sessionDir);
  const originalLines = splitLines(corpus.bytes).map((l) => decoder.decode(l));
  const headerLine = originalLines[0]!;
  const entryLines = new Set(originalLines.slice(1).filter((l) => l !== ""));
  for (const line of entryLines) {
    const checked = checkEntry(JSON.parse(line), 0);
    if (!checked.entry || checked.notices.length > 0) throw new Error(`the corpus itself holds an entry the reader rejects: ${line.slice(0, 200)}`);
  }
  const report: SessionFileFuzzReport = { cases: 0, fullChecks: 0, skippedEntries: 0, corruptFiles: 0 };
  const context: CheckContext = { store, corpus, headerLine, entryLines, report };

  const first = options.onlyCase ?? 0;
  const last = options.onlyCase ?? options.count - 1;
  for (let index = first; index <= last; index++) {
    const mutations = caseMutations(seed, index, corpus.bytes, options.maxMutations);
    const full = options.agent !== undefined && options.fullEvery > 0 && index % options.fullEvery === 0;
    const check = async (candidate: Mutation[], counting: boolean) => {
      const bytes = applyAll(corpus.bytes, candidate);
      return (await checkReader(context, bytes, counting)) ?? (full ? await checkFullLoad(context, options.agent!, bytes) : undefined);
    };
    const reason = await check(mutations, true);
    if (reason !== undefined) {
      const minimal = await shrink(mutations, async (candidate) => (await check(candidate, false)) !== undefined);
      throw new SessionFileFuzzFailure(seed, index, (await check(minimal, false)) ?? reason, minimal);
    }
    report.cases++;
    if (full) report.fullChecks++;
    if (report.cases % 10_000 === 0) options.onProgress?.(report.cases);
  }
  return report;
}

/** Drops mutations one at a time while the case still fails. */
async function shrink(mutations: Mutation[], fails: (candidate: Mutation[]) => Promise<boolean>): Promise<Mutation[]> {
  let current = mutations;
  let progress = true;
  while (progress && current.length > 1) {
    progress = false;
    for (let i = 0; i < current.length; i++) {
      const candidate = current.filter((_, j) => j !== i);
      if (await fails(candidate)) {
        current = candidate;
        progress = true;
        break;
      }
    }
  }
  return current;
}

interface CheckContext {
  store: SessionStore;
  corpus: CorpusSession;
  headerLine: string;
  entryLines: Set<string>;
  report: SessionFileFuzzReport;
}

function place(context: CheckContext, bytes: Uint8Array): void {
  writeFileSync(context.corpus.file, bytes);
  // A lock left by a failed full check must not turn the next case into a "locked" error.
  if (existsSync(`${context.corpus.file}.lock`)) rmSync(`${context.corpus.file}.lock`);
}

function headerIntact(context: CheckContext, lines: string[]): boolean {
  return lines[0] === context.headerLine && lines.length > 1;
}

/** The reader's invariants; a reason when one is broken. */
async function checkReader(context: CheckContext, bytes: Uint8Array, counting: boolean): Promise<string | undefined> {
  place(context, bytes);
  const lines = splitLines(bytes).map((l) => decoder.decode(l));
  let loaded;
  try {
    loaded = await context.store.read(context.corpus.sessionId);
  } catch (error) {
    if (error instanceof StoreError && (error.code === "corrupt" || error.code === "newer_format" || error.code === "not_found") && !headerIntact(context, lines)) {
      if (counting) context.report.corruptFiles++;
      return undefined;
    }
    return `reading the file threw ${describeError(error)}`;
  }
  let updates;
  try {
    const restored = restoreState(loaded.entries);
    JSON.stringify(restored.history);
    updates = replayUpdates(loaded.entries);
    JSON.stringify(updates);
    if (counting) context.report.skippedEntries += restored.notices.filter((n) => n.includes("was damaged")).length;
  } catch (error) {
    return `restoring the entries threw ${describeError(error)}`;
  }
  const invalid = invalidUpdate(updates.map((update) => ({ method: "session/update", params: { sessionId: context.corpus.sessionId, update } })));
  if (invalid) return invalid;
  // Every entry line that survived byte for byte must come back as an intact entry.
  const expected = new Map<string, number>();
  for (const line of lines.slice(1)) {
    if (context.entryLines.has(line)) expected.set(line, (expected.get(line) ?? 0) + 1);
  }
  const restoredLines = new Map<string, number>();
  loaded.entries.forEach((entry, index) => {
    if (!checkEntry(entry, index + 1).entry) return;
    const text = JSON.stringify(entry);
    if (context.entryLines.has(text)) restoredLines.set(text, (restoredLines.get(text) ?? 0) + 1);
  });
  for (const [line, count] of expected) {
    const got = restoredLines.get(line) ?? 0;
    if (got < count) return `an intact entry was lost (${count} in the file, ${got} restored): ${line.slice(0, 160)}`;
  }
  return undefined;
}

/** `session/load` through the whole agent, then a turn; a reason when either fails where it must not. */
async function checkFullLoad(context: CheckContext, agent: InProcessAgent, bytes: Uint8Array): Promise<string | undefined> {
  place(context, bytes);
  const lines = splitLines(bytes).map((l) => decoder.decode(l));
  const { sessionId, cwd } = context.corpus;
  const request = agent.client.agent;
  const from = agent.client.received.length;
  try {
    await request.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  } catch (error) {
    if (!headerIntact(context, lines) && isSessionFileError(error)) return undefined;
    return `session/load failed: ${describeError(error)}`;
  }
  try {
    const { stopReason } = await request.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "one more turn" }] });
    if (stopReason !== "end_turn") return `the turn after loading ended with ${stopReason}`;
  } catch (error) {
    return `the turn after loading failed: ${describeError(error)}`;
  } finally {
    await request.request(acp.methods.agent.session.close, { sessionId }).catch(() => undefined);
  }
  return invalidUpdate(agent.client.received.slice(from));
}

/** The first `session/update` that ACP's schema rejects, described (a client drops such updates with only a log line). */
function invalidUpdate(messages: Array<Record<string, unknown>>): string | undefined {
  for (const message of messages) {
    if (message.method !== "session/update") continue;
    const parsed = zSessionNotification.safeParse(message.params);
    if (parsed.success) continue;
    const issue = parsed.error.issues[0];
    const update = JSON.stringify((message.params as { update?: unknown }).update)?.slice(0, 300);
    return `the agent sent an invalid session/update (${issue?.path.join(".")}: ${issue?.message}): ${update}`;
  }
  return undefined;
}

/** A JSON-RPC error about the session file (corrupt, newer, its cwd changed), not a crash. */
function isSessionFileError(error: unknown): boolean {
  const e = error as { code?: number; data?: { code?: string } };
  return (e.code === -32603 && typeof e.data?.code === "string" && e.data.code.startsWith("session_")) || e.code === -32602 || e.code === -32002;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
