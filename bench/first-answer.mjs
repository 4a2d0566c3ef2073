// First answer and streaming: how long an editor waits for the first chunk of the first, second and
// third prompts of a session, how long whole turns take (a short answer and a 1,500-word one), and
// how much time the agent adds per streamed update — against a fake Anthropic endpoint on 127.0.0.1
// that answers at once, and against a bare client reading that same endpoint directly.
// Agents are spawned interleaved (A, B, C, A, B, C, ...); the table shows medians of one run.
// Usage: npm run bench:turn  (or `node bench/first-answer.mjs [--quick] [--runs N] [--deno] [--against DIR]` after `npm run build`)
// --against DIR adds Node running DIR/dist/cli.js (another checkout's build), interleaved with this one's.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { execFileSync } from "node:child_process";
import { benchEnv } from "./clean-env.mjs";
import { connectNdjson } from "./ndjson-client.mjs";
import { sampleTable } from "./samples.mjs";

const loadAtStart = loadavg()[0];
const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const quick = flags.includes("--quick");
const runsFlag = flags.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(flags[runsFlag + 1]) : quick ? 3 : 9;
const turnsPerSpawn = quick ? 3 : 5;
const IDLE_MS = 1000;
const LONG_WORDS = 1500;
const KEY = "sk-ant-bench-0000000000000000";

// ---------- the fake model: Anthropic Messages over SSE, the whole reply written at once ----------

const WORDS = "the quick brown fox jumps over a lazy dog while agents stream tokens to editors".split(" ");
function sse(event, data) {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}
/** One SSE body with `words` text deltas of one word each. */
function answer(words) {
  let body = sse("message_start", {
    message: { id: "msg_bench", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
  });
  body += sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  for (let i = 0; i < words; i += 1) body += sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: `${WORDS[i % WORDS.length]} ` } });
  body += sse("content_block_stop", { index: 0 });
  body += sse("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: words } });
  body += sse("message_stop", {});
  return body;
}
const SHORT = answer(8);
const LONG = answer(LONG_WORDS);

const server = createServer((req, res) => {
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    // Only the latest prompt decides: the history repeats the earlier ones.
    const last = JSON.parse(raw).messages.at(-1);
    const long = JSON.stringify(last?.content ?? "").includes("LONG ANSWER");
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(long ? LONG : SHORT);
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

// ---------- the bare client: the same stream read straight from the fake model ----------

/** Time to the first text delta and to the end of the stream, read with fetch as a minimal consumer would. */
async function bareStream(long) {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": KEY },
    body: JSON.stringify({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: long ? "LONG ANSWER" : "hi" }], stream: true }),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let first;
  let deltas = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame.slice(frame.indexOf("data: ") + 6);
      const event = JSON.parse(data);
      if (event.type === "content_block_delta") {
        deltas += 1;
        first ??= performance.now() - started;
      }
    }
  }
  return { first, total: performance.now() - started, deltas };
}

// ---------- the agents ----------

const home = mkdtempSync(join(tmpdir(), "acp-edge-bench-turn-"));
const project = join(home, "project");
mkdirSync(project);
writeFileSync(join(project, "AGENTS.md"), "Answer briefly.\n");
writeFileSync(join(home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
const env = benchEnv({ ACP_EDGE_HOME: home, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: KEY });
const agentArgs = ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"];
const cli = join(root, "dist", "cli.js");
const mod = join(root, "mod.ts");
const targets = [
  { name: "node dist/cli.js", command: process.execPath, args: [cli, ...agentArgs] },
  { name: "bun dist/cli.js", command: join(bin, "bun"), args: [cli, ...agentArgs] },
  { name: "bun mod.ts", command: join(bin, "bun"), args: [mod, ...agentArgs] },
  ...(flags.includes("--deno") ? [{ name: "deno mod.ts", command: join(bin, "deno"), args: ["run", "-A", "--quiet", mod, ...agentArgs] }] : []),
  ...(flags.includes("--against") ? [{ name: "node other build", command: process.execPath, args: [join(resolve(flags[flags.indexOf("--against") + 1]), "dist", "cli.js"), ...agentArgs] }] : []),
];

/** The NDJSON client, plus `prompt`: the time to the first chunk, to the answer, and the chunk count. */
function connect(target) {
  let onChunk = () => {};
  const client = connectNdjson(target, { cwd: project, env, onChunk: () => onChunk() });
  const request = async (method, params) => (await client.request(method, params).answered).result;
  return {
    request,
    async prompt(sessionId, text) {
      let first;
      let chunks = 0;
      const started = performance.now();
      onChunk = () => {
        chunks += 1;
        first ??= performance.now() - started;
      };
      await request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      return { first, total: performance.now() - started, chunks };
    },
    close: client.close,
  };
}

const samples = sampleTable();
const record = samples.record;

/** One spawned agent: the first prompt at once (or after an idle pause), two more, then whole turns. */
async function session(target, idle) {
  const agent = connect(target);
  const t0 = performance.now();
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const t1 = performance.now();
  const { sessionId } = await agent.request("session/new", { cwd: project, mcpServers: [] });
  const t2 = performance.now();
  if (idle) await new Promise((r) => setTimeout(r, IDLE_MS));
  const first = await agent.prompt(sessionId, "hello");
  const second = await agent.prompt(sessionId, "and again");
  const third = await agent.prompt(sessionId, "once more");
  if (idle) {
    record(target.name, "first prompt after idle: first chunk", first.first);
  } else {
    record(target.name, "spawn → initialize", t1 - t0);
    record(target.name, "session/new", t2 - t1);
    record(target.name, "first prompt at once: first chunk", first.first);
    record(target.name, "second prompt: first chunk", second.first);
    record(target.name, "third prompt: first chunk", third.first);
    for (let i = 0; i < turnsPerSpawn; i += 1) {
      const short = await agent.prompt(sessionId, "short");
      const long = await agent.prompt(sessionId, "LONG ANSWER please");
      if (long.chunks < LONG_WORDS / 4) throw new Error(`${target.name}: only ${long.chunks} chunks in the long answer`);
      record(target.name, "later prompt: first chunk", short.first);
      record(target.name, "turn, short answer", short.total);
      record(target.name, "turn, 1,500 words", long.total);
      record(target.name, "chunks per 1,500 words", long.chunks);
    }
  }
  await agent.close();
}

// The provider package alone, as the agent calls it (the Anthropic model's own doStream): the part of
// the agent-added time that is the provider's stream pipeline (SSE parsing, response validation).
const { createAnthropic } = await import("@ai-sdk/anthropic");
const sdkModel = createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: KEY })("claude-sonnet-4-5");
async function sdkStream(long) {
  const started = performance.now();
  const { stream } = await sdkModel.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: long ? "LONG ANSWER" : "hi" }] }] });
  let first;
  let deltas = 0;
  for await (const part of stream) {
    if (part.type !== "text-delta") continue;
    deltas += 1;
    first ??= performance.now() - started;
  }
  return { first, total: performance.now() - started, deltas };
}

const BARE = "bare client (fetch on node)";
const SDK = "provider alone (node)";
async function bare() {
  for (let i = 0; i < turnsPerSpawn; i += 1) {
    for (const [name, read] of [[BARE, bareStream], [SDK, sdkStream]]) {
      const short = await read(false);
      const long = await read(true);
      record(name, "later prompt: first chunk", short.first);
      record(name, "turn, short answer", short.total);
      record(name, "turn, 1,500 words", long.total);
    }
  }
}

for (const target of targets) await session(target, false); // warm the file-system cache
samples.clear();
for (let run = 0; run < runs; run += 1) {
  for (const target of targets) {
    await session(target, false);
    await bare();
    await session(target, true);
  }
}
server.close();
rmSync(home, { recursive: true, force: true });

// ---------- the table ----------

const median = (xs) => (xs?.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
const get = (target, metric) => median(samples.values(target, metric));
const metrics = [
  "spawn → initialize",
  "session/new",
  "first prompt at once: first chunk",
  "first prompt after idle: first chunk",
  "second prompt: first chunk",
  "third prompt: first chunk",
  "later prompt: first chunk",
  "turn, short answer",
  "turn, 1,500 words",
];
const version = (command, args) => {
  try {
    return execFileSync(command, args, { encoding: "utf8" }).trim().split("\n")[0];
  } catch {
    return "?";
  }
};
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}; node ${process.version}, bun ${version(join(bin, "bun"), ["--version"])}; load (1-min average) ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`);
console.log(`${runs} spawns per agent and mode, ${turnsPerSpawn} short + ${turnsPerSpawn} long turns per spawn; medians in ms; first prompt "after idle" is sent ${IDLE_MS} ms after session/new`);
const names = [...targets.map((t) => t.name), BARE, SDK];
const cell = (v) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 1) : "–").padStart(22);
console.log(`${"".padEnd(38)}${names.map((n) => ` ${n}`.padStart(22)).join("")}`);
for (const metric of metrics) console.log(`${metric.padEnd(38)}${names.map((n) => cell(get(n, metric))).join("")}`);

// Derived: what the agent adds on top of the model's own time.
const bareFirst = get(BARE, "later prompt: first chunk");
const bareShort = get(BARE, "turn, short answer");
const bareLong = get(BARE, "turn, 1,500 words");
console.log("");
for (const target of targets) {
  const n = target.name;
  const chunks = get(n, "chunks per 1,500 words");
  const perUpdate = ((get(n, "turn, 1,500 words") - get(n, "turn, short answer") - (bareLong - bareShort)) / chunks) * 1000;
  console.log(
    `${n.padEnd(20)} agent-added first chunk (later prompts) ${(get(n, "later prompt: first chunk") - bareFirst).toFixed(2)} ms; ` +
      `first − later prompt ${(get(n, "first prompt at once: first chunk") - get(n, "later prompt: first chunk")).toFixed(1)} ms at once, ` +
      `${(get(n, "first prompt after idle: first chunk") - get(n, "later prompt: first chunk")).toFixed(1)} ms after idle; ` +
      `per streamed update ${perUpdate.toFixed(1)} µs (${chunks} updates)`,
  );
}
const sdkPerUpdate = ((get(SDK, "turn, 1,500 words") - get(SDK, "turn, short answer") - (bareLong - bareShort)) / LONG_WORDS) * 1000;
console.log(`${SDK.padEnd(20)} per streamed update ${sdkPerUpdate.toFixed(1)} µs over the bare client (part of every agent's figure above)`);
const nodeLong = get("node dist/cli.js", "turn, 1,500 words");
console.log(`1,500-word turn, node ÷ bun: ${(nodeLong / get("bun dist/cli.js", "turn, 1,500 words")).toFixed(2)} (dist), ${(nodeLong / get("bun mod.ts", "turn, 1,500 words")).toFixed(2)} (mod.ts)`);
