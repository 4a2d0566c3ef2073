// Subagents at once: how long a turn takes whose model reply asks for N `task` calls, each subagent's
// model answering after a fixed delay (a stand-in for a model's latency). A fake Anthropic endpoint on
// 127.0.0.1 answers the parent with N task calls, then with a closing text once their results are in;
// each subagent's request is answered with a short text after `--delay` ms. The task calls of one reply
// run at most 4 at once, so N ≤ 4 should take about one delay and N = 8 about two; run one after
// another they would take N delays. Figures: median and p90 of `--runs` turns per N (interleaved),
// and the median over the delay × ⌈N/4⌉ the bound allows.
// Usage: npm run build && node bench/subagents.mjs [--runs N] [--delay MS]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";
import { connectNdjson } from "./ndjson-client.mjs";
import { sampleTable } from "./samples.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const flags = process.argv.slice(2);
const flag = (name, fallback) => (flags.includes(name) ? Number(flags[flags.indexOf(name) + 1]) : fallback);
const runs = flag("--runs", 7);
const delay = flag("--delay", 300);
const COUNTS = [1, 2, 4, 8];
const KEY = "sk-ant-bench-0000000000000000";

// ---------- the fake model: Anthropic Messages over SSE ----------

function sse(event, data) {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}
const start = () =>
  sse("message_start", { message: { id: "msg_bench", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
const textReply = (text) =>
  start() +
  sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
  sse("content_block_delta", { index: 0, delta: { type: "text_delta", text } }) +
  sse("content_block_stop", { index: 0 }) +
  sse("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } }) +
  sse("message_stop", {});
function taskReply(n) {
  let out = start();
  for (let i = 0; i < n; i++) {
    const input = JSON.stringify({ description: `part ${i}`, prompt: `Look at part ${i}` });
    out += sse("content_block_start", { index: i, content_block: { type: "tool_use", id: `toolu_${Date.now()}_${i}`, name: "task", input: {} } });
    out += sse("content_block_delta", { index: i, delta: { type: "input_json_delta", partial_json: input } });
    out += sse("content_block_stop", { index: i });
  }
  return out + sse("message_delta", { delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 3 } }) + sse("message_stop", {});
}

/** The number of task calls the next parent reply asks for. */
let wanted = 1;
const server = createServer((req, res) => {
  let raw = "";
  req.setEncoding("utf8");
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const body = JSON.parse(raw);
    const system = JSON.stringify(body.system ?? "");
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (system.includes("You are a subagent")) {
      // The model's latency: the one timer here is the thing measured against.
      setTimeout(() => res.end(textReply("part answered")), delay);
      return;
    }
    const answered = body.messages.some((m) => Array.isArray(m.content) && m.content.some((p) => p.type === "tool_result"));
    res.end(answered ? textReply("all parts answered") : taskReply(wanted));
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

// ---------- the agent ----------

const home = mkdtempSync(join(tmpdir(), "acp-edge-bench-subagents-"));
const project = join(home, "project");
mkdirSync(project);
writeFileSync(join(home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
const env = benchEnv({ HOME: home, ACP_EDGE_HOME: home, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: KEY, NO_COLOR: "1" });
const target = { name: "node dist/cli.js", command: process.execPath, args: [join(root, "dist", "cli.js"), "agent", "stdio", "--model", "anthropic/claude-sonnet-4-5", "--no-session"] };
const agent = connectNdjson(target, { cwd: project, env });
await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answered;

const table = sampleTable();
for (let run = 0; run < runs; run++) {
  for (const n of COUNTS) {
    wanted = n;
    const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] }).answered;
    const prompt = agent.request("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text: "split it up" }] });
    const { at, result: answer } = await prompt.answered;
    if (answer.stopReason !== "end_turn") throw new Error(`turn ended ${answer.stopReason}`);
    table.record(String(n), "turn", at - prompt.sent);
  }
}
await agent.close();
server.close();
rmSync(home, { recursive: true, force: true });

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
console.log(`subagent reply delay ${delay} ms, ${runs} turns per count (node dist/cli.js, --no-session)`);
console.log("task calls | median ms | p90 ms | median / (delay × ⌈N/4⌉)");
for (const n of COUNTS) {
  const values = table.values(String(n), "turn");
  const median = quantile(values, 0.5);
  console.log(`${String(n).padStart(10)} | ${median.toFixed(0).padStart(9)} | ${quantile(values, 0.9).toFixed(0).padStart(6)} | ${(median / (delay * Math.ceil(n / 4))).toFixed(2)}`);
}
