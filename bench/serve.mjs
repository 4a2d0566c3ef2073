// Many sessions in one `agent serve`, per runtime, against a fake model over real HTTP:
//   (a) idle memory: N sessions created over REST, then each attached by one `/apc` WebSocket
//       (initialize + session/new) and left idle; server RSS before and after → KB per session;
//   (b) fan-out: a streamed 1,500-word answer on one `/apc` session watched by 1 client and on
//       another watched by 16 clients (every client receives every update), runs interleaved
//       (1, 16, 1, 16, …); the turn ends when the prompt is answered and every client has every
//       chunk. Medians and the 16/1 ratio.
//   Also the server process's CPU time per turn (user + system, from /proc), which the clients' own work does not inflate.
//   The 15 other clients of the shared session run in a worker thread, so the prompting client reads its answer without
//   waiting behind their frames on one event loop.
//   With two cores or more (and `taskset`), the server runs on core 0 and this process (the clients and the fake model)
//   on core 1, so the 16 clients' own work does not take CPU from the server it measures; `--no-pin` turns that off.
// Usage: npm run bench:serve [-- --quick] [-- --runtimes node,bun,deno] [-- --no-pin]
//        (or `node bench/serve.mjs [--quick]` after `npm run build`)
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import WebSocket from "ws";
import { benchEnv } from "./clean-env.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const quick = flags.includes("--quick");
const runtimesAt = flags.indexOf("--runtimes");
const wanted = (flags.find((f) => f.startsWith("--runtimes="))?.slice("--runtimes=".length) ?? (runtimesAt >= 0 ? flags[runtimesAt + 1] : "node,bun")).split(",");
/** `--only=fanout` or `--only=idle` runs one half (for profiling). */
const only = flags.find((f) => f.startsWith("--only="))?.slice("--only=".length);
// (The watchers' worker thread runs this module too: only the helpers below are meant for it.)
const pinned = isMainThread && !flags.includes("--no-pin") && cpus().length >= 2 && pinTo(1, process.pid);
const IDLE_SESSIONS = Number(process.env.BENCH_IDLE_SESSIONS ?? (quick ? 200 : 1000));
const FAN_OUT = 16;
const RUNS = quick ? 3 : 9;
const WORDS = 1500;
const token = "bench-token-0123456789abcdefghij";
const cli = join(root, "dist", "cli.js");
const servers = [
  // BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" profiles the Node server.
  { name: "node dist/cli.js", runtime: "node", command: process.execPath, args: [...(process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? []), cli] },
  { name: "bun dist/cli.js", runtime: "bun", command: join(bin, "bun"), args: [cli] },
  { name: "deno dist/cli.js", runtime: "deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", cli] },
].filter((s) => wanted.includes(s.runtime));

// ---------- the fake model: OpenAI chat completions, answers at once, one word per delta ----------

const answer = Array.from({ length: WORDS }, (_, i) => `word${i % 97} `);
function chatStream(res) {
  const base = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 0, model: "fake" };
  const frame = (delta, finish = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let body = frame({ role: "assistant", content: "" });
  for (const word of answer) body += frame({ content: word });
  body += frame({}, "stop");
  body += `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: WORDS, total_tokens: WORDS + 10 } })}\n\n`;
  body += "data: [DONE]\n\n";
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.end(body);
}
const model = createServer((req, res) => {
  req.resume();
  req.on("end", () => (req.url?.startsWith("/v1/chat/completions") ? chatStream(res) : res.writeHead(404).end()));
});
if (isMainThread) await new Promise((done) => model.listen(0, "127.0.0.1", done));
const modelUrl = isMainThread ? `http://127.0.0.1:${model.address().port}` : "";

// ---------- the server under test ----------

/** Binds every thread of a process to one core; false where `taskset` is missing or refuses. */
function pinTo(core, pid) {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", String(core), String(pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function start(server, home) {
  return new Promise((resolvePromise, reject) => {
    // taskset execs the server, so the child's pid is the server's (for its RSS and CPU time).
    const [command, ...prefix] = pinned ? ["taskset", "-c", "0", server.command] : [server.command];
    const child = spawn(command, [...prefix, ...server.args, "agent", "serve", "--port", "0"], {
      env: benchEnv({ ACP_EDGE_HOME: home, ACP_EDGE_TOKEN: token, BENCH_MODEL_KEY: "bench-key-not-secret" }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (c) => {
      err += c;
      const url = /listening on (http:\/\/\S+)/.exec(err)?.[1];
      if (url) resolvePromise({ child, url });
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

/** Resident set of a process, in KB. */
function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  } catch {
    return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim());
  }
}

/** CPU time (user + system) a process has used, in ms; undefined where /proc is missing. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function createSession(url, cwd) {
  const res = await fetch(`${url}/v1/sessions`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ cwd }),
  });
  if (res.status !== 201) throw new Error(`create session: ${res.status} ${await res.text()}`);
  return (await res.json()).id;
}

/**
 * One `/apc` client: raw JSON-RPC over `ws`. Updates are counted from the text without parsing
 * them, so the bench's own cost per update stays small next to the server's.
 */
function attach(url, sessionId) {
  return new Promise((resolvePromise, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/v1/session/${sessionId}/apc`, ["agent-client-protocol.v1"], {
      headers: { Authorization: `Bearer ${token}` },
    });
    const waiting = new Map();
    const client = {
      ws,
      chunks: 0,
      lastChunkAt: 0,
      onChunk: undefined,
      request(method, params) {
        return new Promise((done, fail) => {
          const id = ++next;
          waiting.set(id, (m) => (m.error ? fail(new Error(`${method}: ${JSON.stringify(m.error)}`)) : done(m.result)));
          ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
        });
      },
    };
    let next = 0;
    ws.on("message", (data) => {
      // Looked at as bytes: decoding every update would make the bench's own work grow with the clients.
      if (data.includes('"method":"session/update"')) {
        if (data.includes('"agent_message_chunk"')) {
          client.chunks += 1;
          client.lastChunkAt = now();
          client.onChunk?.();
        }
        return;
      }
      const message = JSON.parse(data.toString());
      if (message.method) return; // a request to the client (none expected here)
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    });
    ws.once("open", () => resolvePromise(client));
    ws.once("error", reject);
  });
}

/** A clock shared by this thread and the watchers' thread. */
const now = () => performance.timeOrigin + performance.now();

async function bind(client, sessionId, cwd) {
  await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const result = await client.request("session/new", { cwd, mcpServers: [] });
  if (result.sessionId !== sessionId) throw new Error(`bound ${result.sessionId}, expected ${sessionId}`);
}

/**
 * The 15 other clients of the shared session live in a worker thread: on one event loop with the
 * prompting client, its answer would wait behind 15 sockets' worth of frames the bench itself has
 * to read, which is the bench's latency, not the server's.
 */
function startWatchers(url, sessionId, cwd, count) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { url, sessionId, cwd, count }, argv: process.argv.slice(2) });
  const replies = [];
  worker.on("message", (m) => replies.shift()?.(m));
  const ask = (message) => new Promise((done) => (replies.push(done), worker.postMessage(message)));
  return {
    ready: ask({ kind: "ready" }),
    reset: () => ask({ kind: "reset" }),
    /** Resolves with the time the last watcher got its `expected`-th chunk. */
    allHave: (expected) => ask({ kind: "expect", expected }).then((m) => m.lastChunkAt),
    close: () => ask({ kind: "close" }).then(() => worker.terminate()),
  };
}

if (!isMainThread) {
  const { url, sessionId, cwd, count } = workerData;
  const clients = [];
  for (let i = 0; i < count; i += 1) {
    const c = await attach(url, sessionId);
    await bind(c, sessionId, cwd);
    clients.push(c);
  }
  parentPort.on("message", async (m) => {
    if (m.kind === "ready") parentPort.postMessage({});
    if (m.kind === "reset") {
      for (const c of clients) c.chunks = 0;
      parentPort.postMessage({});
    }
    if (m.kind === "expect") {
      await Promise.all(clients.map((c) => (c.chunks >= m.expected ? undefined : new Promise((done) => (c.onChunk = () => c.chunks >= m.expected && done())))));
      for (const c of clients) c.onChunk = undefined;
      parentPort.postMessage({ lastChunkAt: Math.max(0, ...clients.map((c) => c.lastChunkAt)) });
    }
    if (m.kind === "close") {
      for (const c of clients) c.ws.close();
      parentPort.postMessage({});
    }
  });
}

/** One prompt from the prompting client; ms until its answer, and until every client (watchers too) has every chunk. */
async function turn(client, sessionId, watchers) {
  client.chunks = 0;
  await watchers?.reset();
  const started = now();
  const result = await client.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write 1500 words" }] });
  if (result.stopReason !== "end_turn") throw new Error(`turn ended with ${result.stopReason}`);
  const answeredAt = now();
  const expected = client.chunks;
  const watchersDone = watchers ? await watchers.allHave(expected) : 0;
  return { ms: Math.max(answeredAt, client.lastChunkAt, watchersDone) - started, answeredMs: answeredAt - started, chunks: expected };
}

async function benchServer(server) {
  const home = mkdtempSync(join(tmpdir(), "acp-edge-servebench-"));
  const cwd = join(home, "project");
  mkdirSync(cwd);
  writeFileSync(
    join(home, "settings.json"),
    JSON.stringify({
      defaultModel: "bench/fake",
      maxRetries: 0,
      providers: { bench: { api: "openai-compatible", baseUrl: `${modelUrl}/v1`, apiKeyEnv: "BENCH_MODEL_KEY", models: [{ id: "fake", contextWindow: 1_000_000 }] } },
      serve: { maxConnections: IDLE_SESSIONS + 64, maxAttachedSessions: IDLE_SESSIONS + 16, maxClientsPerSession: FAN_OUT, pingIntervalSeconds: 30 },
    }),
  );
  const { child, url } = await start(server, home);
  const sockets = [];
  try {
    // (b) fan-out first, on a fresh process: one session with 1 client, one with 16.
    const solo = await createSession(url, cwd);
    const shared = await createSession(url, cwd);
    const one = await attach(url, solo);
    await bind(one, solo, cwd);
    const prompting = await attach(url, shared);
    await bind(prompting, shared, cwd);
    const watchers = startWatchers(url, shared, cwd, FAN_OUT - 1);
    await watchers.ready;
    await turn(one, solo); // warm-up: loads the model stack
    await turn(prompting, shared, watchers);
    const times = { one: [], many: [], oneAnswered: [], manyAnswered: [] };
    const cpu = { one: 0, many: 0 };
    let chunks = 0;
    for (let i = 0; i < (only === "idle" ? 0 : RUNS); i += 1) {
      let t = cpuMs(child.pid);
      const single = await turn(one, solo);
      cpu.one += cpuMs(child.pid) - t;
      times.one.push(single.ms);
      times.oneAnswered.push(single.answeredMs);
      t = cpuMs(child.pid);
      const r = await turn(prompting, shared, watchers);
      cpu.many += cpuMs(child.pid) - t;
      times.many.push(r.ms);
      times.manyAnswered.push(r.answeredMs);
      chunks = r.chunks;
    }
    one.ws.close();
    prompting.ws.close();
    await watchers.close();
    await sleep(300);

    // (a) idle sessions: created first (files on disk), then attached, one socket each.
    const ids = [];
    for (let i = 0; i < (only === "fanout" ? 0 : IDLE_SESSIONS); i += 1) ids.push(await createSession(url, cwd));
    await sleep(1000);
    const before = rssKb(child.pid);
    for (let i = 0; i < ids.length; i += 50) {
      const batch = await Promise.all(ids.slice(i, i + 50).map((id) => attach(url, id)));
      await Promise.all(batch.map((c, j) => bind(c, ids[i + j], cwd)));
      sockets.push(...batch);
    }
    await sleep(2000);
    const after = rssKb(child.pid);
    const active = await (await fetch(`${url}/console/activity`, { headers: { Authorization: `Bearer ${token}` } })).json();
    const attached = Object.values(active.sessions ?? {}).filter((s) => s.clients > 0).length;
    if (attached < ids.length) throw new Error(`only ${attached} of ${IDLE_SESSIONS} sessions are attached`);
    return {
      name: server.name,
      rssBeforeMb: before / 1024,
      rssAfterMb: after / 1024,
      perSessionKb: (after - before) / Math.max(1, ids.length),
      oneMs: median(times.one),
      manyMs: median(times.many),
      oneAnsweredMs: median(times.oneAnswered),
      manyAnsweredMs: median(times.manyAnswered),
      chunks,
      cpuOneMs: cpu.one / RUNS,
      cpuManyMs: cpu.many / RUNS,
    };
  } finally {
    for (const c of sockets) c.ws.terminate();
    child.kill("SIGTERM");
    await new Promise((done) => (child.exitCode !== null ? done() : child.once("exit", done)));
    rmSync(home, { recursive: true, force: true });
  }
}

if (isMainThread) {
const version = (command, args) => {
  try {
    return execFileSync(command, args, { encoding: "utf8" }).split("\n")[0].trim();
  } catch {
    return "?";
  }
};
const results = [];
for (const server of servers) results.push(await benchServer(server));
model.close();

console.log(`agent serve, many sessions (${quick ? "quick" : "full"} run): ${IDLE_SESSIONS} idle /apc sessions; a ${WORDS}-word streamed turn, 1 vs ${FAN_OUT} clients, median of ${RUNS} interleaved runs`);
console.log(
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), node ${process.version}, bun ${version(join(bin, "bun"), ["--version"])}` +
    (wanted.includes("deno") ? `, ${version(join(bin, "deno"), ["--version"])}` : ""),
);
const cols = ["server", "RSS before", `RSS +${IDLE_SESSIONS}`, "per idle session", "turn, 1 client", `turn, ${FAN_OUT} clients`, `${FAN_OUT}/1`, "answered, 1", `${FAN_OUT}`, `answered ${FAN_OUT}/1`, "server CPU/turn, 1", `${FAN_OUT}`, `CPU ${FAN_OUT}/1`];
const rows = results.map((r) => [
  r.name,
  `${r.rssBeforeMb.toFixed(1)} MB`,
  `${r.rssAfterMb.toFixed(1)} MB`,
  `${r.perSessionKb.toFixed(0)} KB`,
  `${r.oneMs.toFixed(0)} ms`,
  `${r.manyMs.toFixed(0)} ms`,
  `${(r.manyMs / r.oneMs).toFixed(2)}×`,
  `${r.oneAnsweredMs.toFixed(0)} ms`,
  `${r.manyAnsweredMs.toFixed(0)} ms`,
  `${(r.manyAnsweredMs / r.oneAnsweredMs).toFixed(2)}×`,
  Number.isNaN(r.cpuOneMs) ? "?" : `${r.cpuOneMs.toFixed(0)} ms`,
  Number.isNaN(r.cpuManyMs) ? "?" : `${r.cpuManyMs.toFixed(0)} ms`,
  Number.isNaN(r.cpuOneMs) ? "?" : `${(r.cpuManyMs / r.cpuOneMs).toFixed(2)}×`,
]);
const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
console.log(line(cols));
console.log(`|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
for (const r of rows) console.log(line(r));
console.log(
  `(${results[0]?.chunks ?? 0} agent_message_chunk updates per turn; a turn ends when every client has every chunk; "answered" is when the ` +
    `prompting client has the prompt's answer; ${pinned ? "server pinned to core 0, clients and fake model to core 1" : "server and clients share the cores"}; server CPU/turn is the server process's user+system time per turn, mean of the runs. ` +
    `Targets: ≤ 200 KB per idle session, ${FAN_OUT}/1 ≤ 1.10×)`,
);
}
