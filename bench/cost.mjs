// What a session's input costs with prompt caching: replays scripted sessions of file reads against a
// fake Anthropic endpoint and prices every request body by one simulation of Anthropic's cache
// (reads 0.1x, 5-minute writes 1.25x, 1-hour writes 2x, the rest 1x; tokens ~ characters / 4).
// Contenders: acp-edge with promptCache short (the default), long and off, and
// @agentclientprotocol/claude-agent-acp when it installs (into a temporary folder, never a dependency
// of this project). Each row: requests, characters sent, billed input as tokens at the input price,
// and billed input against the same bodies uncached.
// Usage: npm run bench:cost [-- --peers DIR]   (--peers reuses a folder where claude-agent-acp was
// installed with `npm install --prefix DIR`; --no-peer skips it)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AnthropicCacheSim, billedInput } from "../tests/helpers/anthropic-cache-sim.ts";
import { startFakeModelServer } from "../tests/helpers/fake-model-server.ts";
import { benchEnv } from "./clean-env.mjs";
import { startPeerAgent } from "./peer-client.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const args = process.argv.slice(2);
const work = mkdtempSync(join(tmpdir(), "acp-edge-cost-"));

/** The sessions replayed: prompts of N reads each, then an answer. */
const SESSIONS = [
  { name: "2 prompts x 5 reads", prompts: 2, reads: 5 },
  { name: "3 prompts x 11 reads", prompts: 3, reads: 11 },
];

// ---------- the project: a ~10 KB instructions file and ~6 KB files to read ----------
function filler(label, chars) {
  const lines = [];
  for (let i = 0, n = 0; n < chars; i += 1) {
    const line = `${label} line ${i}: the quick brown fox jumps over the lazy dog ${(i * 7919) % 10007}`;
    lines.push(line);
    n += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}
const project = join(work, "project");
mkdirSync(join(project, "src"), { recursive: true });
writeFileSync(join(project, "AGENTS.md"), filler("instructions", 10_000));
writeFileSync(join(project, "CLAUDE.md"), filler("instructions", 10_000));
for (let p = 1; p <= 3; p += 1) for (let i = 1; i <= 11; i += 1) writeFileSync(join(project, "src", `file-${p}-${i}.txt`), filler(`file ${p}.${i}`, 6_000));

// ---------- the fake model: the next read from the conversation so far ----------
let session = SESSIONS[0];
const isToolResult = (block) => block?.type === "tool_result";
/** Reads of the current prompt so far, and which prompt it is, from the request's messages. */
function progress(messages) {
  const prompts = messages.filter((m) => m.role === "user" && (typeof m.content === "string" || !m.content.some(isToolResult)));
  const last = messages.lastIndexOf(prompts.at(-1));
  const reads = messages.slice(last + 1).filter((m) => m.role === "user" && Array.isArray(m.content) && m.content.some(isToolResult)).length;
  return { prompt: prompts.length, reads };
}
const model = await startFakeModelServer([], {
  simulateCache: true,
  reply: (request) => {
    const body = request.body ?? {};
    const names = (body.tools ?? []).map((t) => t.name);
    const claude = names.includes("Read");
    // Requests outside the agent's loop (a peer's title or topic requests) get a short answer, and are billed too.
    if (!claude && !names.includes("read")) return { text: "Reading files." };
    const { prompt, reads } = progress(body.messages ?? []);
    if (reads >= session.reads) return { text: `Read all ${session.reads} files of part ${prompt}.` };
    const file = `src/file-${prompt}-${reads + 1}.txt`;
    return { toolCalls: [claude ? { name: "Read", input: { file_path: join(project, file) } } : { name: "read", input: { path: file } }] };
  },
});

// ---------- contenders ----------
function installPeer() {
  if (args.includes("--no-peer")) return { why: "--no-peer" };
  const reuse = args.indexOf("--peers");
  const prefix = reuse >= 0 ? resolve(args[reuse + 1]) : join(work, "peers");
  const result = reuse >= 0 ? { status: 0 } : spawnSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", "@agentclientprotocol/claude-agent-acp"], { encoding: "utf8", env: { ...process.env, npm_config_cache: join(work, "npm-cache") } });
  const entry = join(prefix, "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js");
  if (result.status !== 0 || !existsSync(entry)) return { why: (result.stderr || "entry point not found").trim().split("\n").at(-1) };
  const version = JSON.parse(readFileSync(join(prefix, "node_modules", "@agentclientprotocol", "claude-agent-acp", "package.json"), "utf8")).version;
  return { entry, version };
}

function edge(promptCache) {
  const home = join(work, `edge-home-${promptCache}`);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "settings.json"), JSON.stringify({ promptCache, maxRetries: 0 }));
  return {
    name: `acp-edge, promptCache ${promptCache}`,
    command: process.env.NODE ?? "node",
    args: [join(root, "dist", "cli.js"), "agent", "stdio", "--model", "anthropic/claude-sonnet-4-5", "--approval-mode", "yolo"],
    env: { ACP_EDGE_HOME: home, ANTHROPIC_API_KEY: "sk-ant-fake-bench", ANTHROPIC_BASE_URL: `${model.url}/v1` },
  };
}

function claude(peer) {
  const home = join(work, "claude-home");
  mkdirSync(home, { recursive: true });
  return {
    name: `claude-agent-acp ${peer.version}`,
    command: process.env.NODE ?? "node",
    args: [peer.entry],
    // As root, Claude Code refuses the permission mode the adapter starts it in unless told it runs in a sandbox.
    env: { HOME: home, ANTHROPIC_API_KEY: "sk-ant-fake-bench", ANTHROPIC_BASE_URL: model.url, ANTHROPIC_MODEL: "claude-sonnet-4-5", ...(process.getuid?.() === 0 ? { IS_SANDBOX: "1" } : {}) },
  };
}

// ---------- driving one agent over NDJSON ----------
// Permission requests (reads) are allowed, so every contender does the same work.
const allowReads = (params) => {
  const allow = params?.options?.find((o) => o.kind === "allow_always" || o.kind === "allow_once");
  return allow ? { outcome: "selected", optionId: allow.optionId } : undefined;
};
const startAgent = (contender) => startPeerAgent(contender, { cwd: project, env: benchEnv(contender.env), answerPermission: allowReads });

/** Runs one session with one contender; every request it sent, priced by a fresh cache. */
async function measure(contender) {
  if (contender.skip) return { why: contender.skip };
  const agent = startAgent(contender);
  const first = model.requests.length;
  try {
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, 120_000);
    const { sessionId } = (await agent.request("session/new", { cwd: project, mcpServers: [] }, 120_000)).result;
    for (let p = 1; p <= session.prompts; p += 1) {
      const { result } = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `Read the ${session.reads} files of part ${p}, one by one.` }] }, 120_000);
      if (result?.stopReason !== "end_turn") throw new Error(`prompt ended ${result?.stopReason}`);
    }
  } catch (error) {
    return { why: String(error.message ?? error).replace(/\s+/g, " ").slice(0, 200) };
  } finally {
    agent.stop();
  }
  const cache = new AnthropicCacheSim();
  const out = { requests: 0, chars: 0, billed: 0, uncached: 0, maxBreakpoints: 0 };
  for (const request of model.requests.slice(first)) {
    if (request.path !== "/v1/messages") continue;
    const usage = cache.bill(request.body);
    out.requests += 1;
    out.chars += JSON.stringify(request.body).length;
    out.billed += billedInput(usage);
    out.uncached += usage.input + usage.cacheRead + usage.cacheWrite;
    out.maxBreakpoints = Math.max(out.maxBreakpoints, usage.breakpoints);
  }
  return out;
}

// ---------- run ----------
const peer = installPeer();
const contenders = [edge("short"), edge("long"), edge("off"), peer.entry ? claude(peer) : { name: "claude-agent-acp", skip: `not installed: ${peer.why}` }];
const k = (n) => `${(n / 1000).toFixed(0)}k`;
console.log("Billed input by a simulation of Anthropic's prompt cache (tokens ~ characters / 4; reads 0.1x, 5-min writes 1.25x, 1-h writes 2x)");
for (const s of SESSIONS) {
  session = s;
  console.log(`\n${s.name} (~10 KB instructions file, ~6 KB files)`);
  console.log(["contender".padEnd(34), "requests", "chars sent", "billed tokens", "uncached", "billed/uncached", "max breakpoints"].join("  "));
  for (const contender of contenders) {
    const r = await measure(contender);
    if (r.why) {
      console.log(`${contender.name.padEnd(34)}  skipped: ${r.why}`);
      continue;
    }
    console.log(
      [contender.name.padEnd(34), String(r.requests).padStart(8), k(r.chars).padStart(10), k(r.billed).padStart(13), k(r.uncached).padStart(8), `${(r.billed / r.uncached).toFixed(3)}x`.padStart(15), String(r.maxBreakpoints).padStart(15)].join("  "),
    );
  }
}
await model.close();
rmSync(work, { recursive: true, force: true });
