// Sessions at scale: `session/list` latency through the CLI over stdio (raw JSON-RPC), with
// 100 / 1,000 / 10,000 stored sessions of realistic size (50–500 KB of JSONL each, the entry mix
// the agent writes) spread over 10 projects, with and without a `cwd` filter.
// Per size, runtime and repetition (runtimes interleaved), it times:
//   no index     first call of a fresh process after every index file was removed (rebuild)
//   restart      first call of a fresh process with the index files written by the previous one
//   warm         later calls of one process: page 1 and the following pages by cursor
// and the same three with `cwd` set to a project holding 10% of the sessions.
// The generated files stay in the OS page cache: "restart" is a new process, not a cold disk.
// Usage: npm run bench:sessions  (or `node bench/sessions.mjs [--quick] [--reps=N] [--sizes=100,1000]
//        [--runtimes=node,bun,deno] [--keep]` after `npm run build`)
// --quick: 100 and 1,000 sessions, node and bun, 3 repetitions. --keep: leave the data for a re-run.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, utimesSync, writeFileSync, copyFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const option = (name) => flags.find((f) => f.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = flags.includes("--quick");
const keep = flags.includes("--keep");
const sizes = (option("sizes") ?? (quick ? "100,1000" : "100,1000,10000")).split(",").map(Number);
const runtimeNames = (option("runtimes") ?? (quick ? "node,bun" : "node,bun,deno")).split(",");
const reps = Number(option("reps") ?? (quick ? 3 : 5));
const warmCalls = 10;
const largest = Math.max(...sizes);

const PROJECTS = 10;
/** Share of the sessions per project, in percent (sums to 100); project 3 is the `cwd` one (10%). */
const WEIGHTS = [30, 20, 12, 10, 8, 6, 5, 4, 3, 2];
const CWD_PROJECT = 3;
const cwdOf = (p) => `/home/dev/projects/project-${p}`;
const slugOf = (cwd) => `--${cwd.replace(/^\/+/, "").replace(/[/\\:]/g, "-").replace(/[^A-Za-z0-9._-]/g, "_")}--`;
/** Session j's project: the first N sessions are spread exactly by WEIGHTS for every N that is a multiple of 100. */
const projectOfSession = (j) => {
  let slot = j % 100;
  for (let p = 0; p < PROJECTS; p++) {
    if (slot < WEIGHTS[p]) return p;
    slot -= WEIGHTS[p];
  }
  return PROJECTS - 1;
};

// ---------------------------------------------------------------- generation
/** A deterministic pseudo-random source, so runs generate the same data. */
let seed = 0x2545f491;
const random = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
};
const WORDS = "the build fails because a module cannot be found when the test runner starts so we read the config and fix the import path then run it again and check the output of every step".split(" ");
const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
const codeLines = (n) => Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(4)}\t  const value${i} = compute("${words(3)}", ${i}); // ${words(4)}`).join("\n");

let clock = Date.parse("2026-01-05T09:00:00.000Z");
const at = () => new Date((clock += 1000 + Math.floor(random() * 20000))).toISOString();
let counter = 0;
const nextId = (prefix) => `${prefix}_${(++counter).toString(36)}`;

/** One turn as the agent records it: prompt, assistant reply with a tool call, the call, its result, the tool message, usage. */
function turnLines(first) {
  const callId = nextId("call");
  const out = codeLines(20 + Math.floor(random() * 300));
  const path = `/home/dev/src/${WORDS[Math.floor(random() * WORDS.length)]}.ts`;
  const prompt = `${words(6 + Math.floor(random() * 30))}\n${words(10)}`;
  const lines = [
    { type: "message", at: at(), messageId: nextId("msg"), message: { role: "user", content: [{ type: "text", text: prompt }] } },
    ...(first ? [{ type: "title", at: at(), title: words(5) }] : []),
    {
      type: "message",
      at: at(),
      messageId: nextId("msg"),
      message: {
        role: "assistant",
        model: "anthropic/claude-sonnet-4",
        content: [
          { type: "thinking", text: words(40 + Math.floor(random() * 200)) },
          { type: "text", text: words(20 + Math.floor(random() * 120)) },
          { type: "tool_call", id: callId, name: "read", input: { path } },
        ],
      },
    },
    { type: "tool_call", at: at(), toolCallId: callId, toolName: "read", title: `Read ${path}`, kind: "read", locations: [{ path }], input: { path } },
    { type: "tool_result", at: at(), toolCallId: callId, status: "completed", content: [{ type: "content", content: { type: "text", text: out } }], locations: [{ path }] },
    { type: "message", at: at(), messageId: nextId("msg"), message: { role: "tool", toolCallId: callId, toolName: "read", content: [{ type: "text", text: out }], isError: false } },
    { type: "usage", at: at(), used: 20000 + Math.floor(random() * 100000), size: 200000, cost: random(), input: 1000, output: 500, cacheRead: 10000, cacheWrite: 2000 },
  ];
  if (random() < 0.15) lines.push({ type: "plan", at: at(), entries: [{ content: words(6), status: "in_progress", priority: "medium" }] });
  if (random() < 0.05) lines.push({ type: "config", at: at(), mode: "write" });
  return lines.map((l) => `${JSON.stringify(l)}\n`).join("");
}

/** Later turns are drawn from a pool: generating 2.5 GB of fresh text would take minutes. */
const POOL = Array.from({ length: 400 }, () => turnLines(false));

/** A session file of about `target` bytes; a `title` entry near the end in a third of them (a rename). */
function sessionText(id, cwd, target) {
  const parts = [`${JSON.stringify({ type: "session", version: 1, id, cwd, additionalDirectories: [], createdAt: at() })}\n`, turnLines(true)];
  let length = parts[0].length + parts[1].length;
  while (length < target) {
    const turn = POOL[Math.floor(random() * POOL.length)];
    parts.push(turn);
    length += turn.length;
  }
  let text = parts.join("");
  if (random() < 0.33) text += `${JSON.stringify({ type: "title", at: at(), title: words(4) })}\n`;
  return text;
}

const home = mkdtempSync(join(tmpdir(), "acp-edge-bench-sessions-"));
const master = join(home, "all");
const now = Date.now();
let totalBytes = 0;

function generate() {
  const needed = largest * 300 * 1024;
  const { bavail, bsize } = statfsSync(home);
  const free = bavail * bsize;
  if (free < needed * 1.2) {
    console.error(`not enough free disk space in ${tmpdir()}: ${(free / 2 ** 30).toFixed(1)} GiB free, about ${(needed / 2 ** 30).toFixed(1)} GiB needed; try --sizes=100,1000`);
    process.exit(2);
  }
  const started = performance.now();
  for (let p = 0; p < PROJECTS; p++) mkdirSync(join(master, slugOf(cwdOf(p))), { recursive: true, mode: 0o700 });
  for (let j = 0; j < largest; j++) {
    const id = `sess_${j.toString(36).padStart(6, "0")}bench${"x".repeat(10)}`;
    const cwd = cwdOf(projectOfSession(j));
    const text = sessionText(id, cwd, 50 * 1024 + Math.floor(random() * 450 * 1024));
    const file = join(master, slugOf(cwd), `${id}.jsonl`);
    writeFileSync(file, text, { mode: 0o600 });
    // Newest first in id order, one minute apart, all settled long ago.
    const mtime = new Date(now - 3_600_000 - j * 60_000);
    utimesSync(file, mtime, mtime);
    totalBytes += text.length;
  }
  return performance.now() - started;
}

/** A data dir holding the first `n` sessions, as hard links into the master copy (copies where links fail). */
function dataDir(n) {
  const dir = join(home, `d${n}`);
  for (let j = 0; j < n; j++) {
    const id = `sess_${j.toString(36).padStart(6, "0")}bench${"x".repeat(10)}`;
    const folder = join(dir, slugOf(cwdOf(projectOfSession(j))));
    if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
    const from = join(master, slugOf(cwdOf(projectOfSession(j))), `${id}.jsonl`);
    try {
      linkSync(from, join(folder, `${id}.jsonl`));
    } catch {
      copyFileSync(from, join(folder, `${id}.jsonl`));
    }
  }
  return dir;
}

function removeIndexes(dir) {
  for (const folder of readdirSync(dir)) rmSync(join(dir, folder, ".list-index.json"), { force: true });
}

// ---------------------------------------------------------------- the agent over stdio
const runtimes = {
  node: (args) => ({ command: process.execPath, args: [join(root, "dist", "cli.js"), ...args] }),
  bun: (args) => ({ command: join(bin, "bun"), args: [join(root, "mod.ts"), ...args] }),
  deno: (args) => ({ command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts"), ...args] }),
};

/** Starts the agent on `runtime` with `sessionDir` and answers `initialize`; returns a request function. */
async function startAgent(runtime, sessionDir) {
  const { command, args } = runtimes[runtime](["agent", "stdio", "--session-dir", sessionDir]);
  const child = spawn(command, args, { env: benchEnv({ ACP_EDGE_HOME: join(home, "home") }), stdio: ["pipe", "pipe", "inherit"] });
  const waiting = new Map();
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line);
      const settle = waiting.get(message.id);
      if (settle) {
        waiting.delete(message.id);
        settle(message);
      }
    }
  });
  let nextRequest = 0;
  const request = (method, params) =>
    new Promise((resolvePromise, reject) => {
      const id = ++nextRequest;
      const started = performance.now();
      waiting.set(id, (message) => {
        const elapsed = performance.now() - started;
        if (message.error) reject(new Error(`${runtime} ${method}: ${JSON.stringify(message.error)}`));
        else resolvePromise({ result: message.result, elapsed });
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const stop = () =>
    new Promise((resolvePromise) => {
      child.on("close", resolvePromise);
      child.stdin.end();
      setTimeout(() => child.kill(), 5000).unref();
    });
  return { request, stop };
}

/** Times one `session/list` and checks the page. */
async function list(agent, params, expectSessions) {
  const { result, elapsed } = await agent.request("session/list", params);
  if (expectSessions && result.sessions.length === 0) throw new Error(`session/list answered no sessions for ${JSON.stringify(params)}`);
  return { elapsed, nextCursor: result.nextCursor };
}

/** Warm calls: page 1, then following pages by cursor, back to page 1 at the end. */
async function warm(agent, params) {
  const times = [];
  let cursor;
  for (let i = 0; i < warmCalls; i++) {
    const { elapsed, nextCursor } = await list(agent, { ...params, ...(cursor ? { cursor } : {}) }, true);
    times.push(elapsed);
    cursor = nextCursor;
  }
  return times;
}

// ---------------------------------------------------------------- the run
const version = (command, args) => spawnSync(command, args, { encoding: "utf8" }).stdout.trim().split("\n")[0];
console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), node ${process.version}, bun ${version(join(bin, "bun"), ["--version"])}, ${version(join(bin, "deno"), ["--version"])}`);
const generation = generate();
console.log(`generated ${largest} sessions, ${(totalBytes / 2 ** 30).toFixed(2)} GiB (mean ${(totalBytes / largest / 1024).toFixed(0)} KiB), in ${(generation / 1000).toFixed(1)} s; ${reps} repetitions, ${warmCalls} warm calls each`);

const METRICS = ["no index", "restart", "warm", "cwd: no index", "cwd: restart", "cwd: warm"];
const results = new Map(); // `${size}|${metric}|${runtime}` → times
const record = (size, metric, runtime, times) => {
  const key = `${size}|${metric}|${runtime}`;
  results.set(key, [...(results.get(key) ?? []), ...[times].flat()]);
};

try {
  for (const size of sizes) {
    const dir = dataDir(size);
    // Linking changed every file's ctime: wait until the files are settled (a file changed in the
    // last 3 s is read again on every call), as stored sessions are that nobody is writing to.
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 3500));
    const cwd = cwdOf(CWD_PROJECT);
    for (let rep = 0; rep < reps; rep++) {
      for (const runtime of runtimeNames) {
        removeIndexes(dir);
        let agent = await startAgent(runtime, dir);
        record(size, "no index", runtime, (await list(agent, {}, true)).elapsed);
        record(size, "warm", runtime, await warm(agent, {}));
        await agent.stop();

        agent = await startAgent(runtime, dir);
        record(size, "restart", runtime, (await list(agent, {}, true)).elapsed);
        await agent.stop();

        removeIndexes(dir);
        agent = await startAgent(runtime, dir);
        record(size, "cwd: no index", runtime, (await list(agent, { cwd }, true)).elapsed);
        await agent.stop();

        agent = await startAgent(runtime, dir);
        record(size, "cwd: restart", runtime, (await list(agent, { cwd }, true)).elapsed);
        record(size, "cwd: warm", runtime, await warm(agent, { cwd }));
        await agent.stop();
      }
    }
    process.stderr.write(`done: ${size} sessions\n`);
  }
} finally {
  if (!keep) rmSync(home, { recursive: true, force: true });
  else console.log(`data kept in ${home}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log("");
console.log(`session/list latency, ms (median; spawn and initialize not included)`);
const header = ["sessions", "call", ...runtimeNames, ...(runtimeNames.includes("node") ? runtimeNames.filter((r) => r !== "node").map((r) => `${r}/node`) : [])];
const rows = [header];
for (const size of sizes) {
  for (const metric of METRICS) {
    const medians = runtimeNames.map((r) => median(results.get(`${size}|${metric}|${r}`) ?? [NaN]));
    const node = medians[runtimeNames.indexOf("node")];
    const ratios = runtimeNames.includes("node") ? runtimeNames.filter((r) => r !== "node").map((r) => (medians[runtimeNames.indexOf(r)] / node).toFixed(2)) : [];
    rows.push([String(size), metric, ...medians.map((m) => m.toFixed(1)), ...ratios]);
  }
}
const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
for (const [i, row] of rows.entries()) {
  console.log(`| ${row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(" | ")} |`);
  if (i === 0) console.log(`|${widths.map((w, c) => (c < 2 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
}
console.log(`cwd: ${WEIGHTS[CWD_PROJECT]}% of the sessions are in that project.`);
