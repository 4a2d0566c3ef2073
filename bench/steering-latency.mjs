// Steering latency: how long a message sent with `_session/steering` takes to reach the model, at a
// boundary where the next model call is ready to go. A fake Anthropic endpoint on 127.0.0.1 streams a
// reply and holds its last frames; the bench steers, and as soon as the agent answers "injected"
// releases the reply, which ends the model's step (end_turn): the agent adds the steered message and
// calls the model again at once. Measured per turn, on the bench's own clock:
//   steering request → answer "injected"            (the request's own round trip over stdio)
//   end of the held reply → model request with it     (what the boundary adds: landing and the call)
//   steering request → model request with it          (the whole, the reply released on the answer)
// One agent process per runtime, a fresh session per turn; medians and p90 of `--runs` turns. The boundary
// includes making the model's reply durable (written and fsynced before the turn goes on) and writing the
// steered message before the model is asked; `--no-session` shows the figures without the disk.
// Usage: npm run bench:steering  (or `node bench/steering-latency.mjs [--runs N] [--deno] [--bun]` after `npm run build`)
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectNdjson } from "./ndjson-client.mjs";
import { sampleTable } from "./samples.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const runsFlag = flags.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(flags[runsFlag + 1]) : 40;
const KEY = "sk-ant-bench-0000000000000000";

// ---------- the fake model: Anthropic Messages over SSE ----------

function sse(event, data) {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}
const START = sse("message_start", {
  message: { id: "msg_bench", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
});
const TEXT = sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) + sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: "working on it" } });
const END = sse("content_block_stop", { index: 0 }) + sse("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } }) + sse("message_stop", {});

/** The reply being held (its last frames not written yet), and who waits for the request that carries a steered message. */
let held;
let awaitingSteered;
const server = createServer((req, res) => {
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const arrived = performance.now();
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const steered = /STEER-\d+/.exec(raw)?.[0];
    if (steered) {
      awaitingSteered?.({ steered, arrived });
      res.end(START + TEXT + END);
      return;
    }
    // The prompt's reply: everything but its end, which waits for `release`.
    res.write(START + TEXT);
    held?.resolve(() => {
      const ended = performance.now();
      res.end(END);
      return ended;
    });
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

// ---------- the agents ----------

const home = mkdtempSync(join(tmpdir(), "acp-edge-bench-steer-"));
const project = join(home, "project");
mkdirSync(project);
writeFileSync(join(home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
// A minimal environment: what the runtime needs to start, the home and the model's endpoint.
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ACP_EDGE_HOME: home, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: KEY, NO_COLOR: "1" };
const agentArgs = ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"];
const cli = join(root, "dist", "cli.js");
const mod = join(root, "mod.ts");
const targets = [
  { name: "node dist/cli.js", command: process.execPath, args: [cli, ...agentArgs] },
  // The same without a session file: what is left when no step waits for the disk.
  { name: "node, --no-session", command: process.execPath, args: [cli, ...agentArgs, "--no-session"] },
  ...(flags.includes("--bun") ? [{ name: "bun mod.ts", command: join(bin, "bun"), args: [mod, ...agentArgs] }] : []),
  ...(flags.includes("--deno") ? [{ name: "deno mod.ts", command: join(bin, "deno"), args: ["run", "-A", "--quiet", mod, ...agentArgs] }] : []),
];

const connect = (target) => connectNdjson(target, { cwd: project, env });

const samples = sampleTable();
const record = samples.record;

/** One turn: the prompt's reply held, a steering message, the reply released on its answer. */
async function steeredTurn(agent, target, n) {
  const { result: session } = await agent.request("session/new", { cwd: project, mcpServers: [] }).answered;
  const replyHeld = new Promise((resolve) => (held = { resolve }));
  const prompt = agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "start" }] }).answered;
  const release = await replyHeld;
  const steeredArrives = new Promise((resolve) => (awaitingSteered = resolve));
  const steering = agent.request("_session/steering", { sessionId: session.sessionId, prompt: [{ type: "text", text: `STEER-${n}` }] });
  const { result, at: answeredAt } = await steering.answered;
  if (result.outcome !== "injected") throw new Error(`${target.name}: steering answered ${JSON.stringify(result)}`);
  const ended = release();
  const { steered, arrived } = await steeredArrives;
  if (steered !== `STEER-${n}`) throw new Error(`${target.name}: the model saw ${steered}, not STEER-${n}`);
  const { result: done } = await prompt;
  if (done.stopReason !== "end_turn") throw new Error(`${target.name}: the turn ended ${done.stopReason}`);
  return { answer: answeredAt - steering.sent, boundary: arrived - ended, total: arrived - steering.sent };
}

try {
  for (const target of targets) {
    const agent = connect(target);
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answered;
    // Two turns to warm up (the first loads the engine, the model client and the provider package).
    for (let n = 0; n < runs + 2; n += 1) {
      const turn = await steeredTurn(agent, target, n);
      if (n < 2) continue;
      record(target.name, "steering request → answer \"injected\"", turn.answer);
      record(target.name, "end of the model's reply → model request with the message", turn.boundary);
      record(target.name, "steering request → model request with the message", turn.total);
    }
    await agent.close();
  }
} finally {
  server.close();
  rmSync(home, { recursive: true, force: true });
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
console.log(`steering latency, ${runs} turns per runtime (median / p90, ms)\n`);
console.log(`| | ${targets.map((t) => t.name).join(" | ")} |`);
console.log(`|---|${targets.map(() => "---").join("|")}|`);
const metrics = samples.metrics();
for (const metric of metrics) {
  const cells = targets.map((t) => {
    const values = samples.values(t.name, metric);
    return values.length ? `${quantile(values, 0.5).toFixed(2)} / ${quantile(values, 0.9).toFixed(2)}` : "–";
  });
  console.log(`| ${metric} | ${cells.join(" | ")} |`);
}
