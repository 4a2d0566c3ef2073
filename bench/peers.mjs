// Side by side with peers: acp-edge (Node, Bun and Deno on dist/, the compiled binary) next to
// @agentclientprotocol/claude-agent-acp and @zed-industries/codex-acp's native binary, each driven
// the same way over stdio NDJSON against one fake model served over real HTTP (Anthropic Messages for
// acp-edge and claude-agent-acp, OpenAI Responses for codex-acp), interleaved run by run.
// Peers are installed on demand into a temporary folder (never dependencies of this project); one that
// fails to install or to answer is shown with the reason instead of figures.
// Usage: npm run bench:peers [-- --runs N] [--quick] [--peers DIR] [--against DIR] [--only TEXT]   (runs `npm run build`
// and `build:binary` first; --peers reuses a folder where both peers were installed with `npm install --prefix DIR`;
// --against adds Node, Bun and Deno running another checkout's dist/cli.js, interleaved, for before/after figures)
// "Agent time per model step" is a turn's time less the time the fake model spent answering (request in → reply
// written), divided by the model requests of the turn: what the agent itself adds to every step.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeModelServer } from "../tests/helpers/fake-model-server.ts";
import { benchEnv } from "./clean-env.mjs";
import { startPeerAgent } from "./peer-client.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const runsFlag = args.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(args[runsFlag + 1]) : quick ? 3 : 9;
const work = mkdtempSync(join(tmpdir(), "acp-edge-peers-"));
const project = join(work, "project");
mkdirSync(project, { recursive: true });
writeFileSync(join(project, "README.md"), "# a small project\n");

// ---------- the fake model ----------
const LONG_MARK = "LONG-ANSWER";
// A prompt with this mark is answered by TOOL_STEPS reads of README.md (with the read tool the agent offers), then text.
const TOOL_MARK = "READ-IT-STEPWISE";
const TOOL_STEPS = 4;
const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
const longText = Array.from({ length: 1500 }, (_, i) => WORDS[i % WORDS.length]).join(" ") + ".";
const lastUserText = (body) => {
  const list = body?.messages ?? body?.input ?? [];
  const users = (Array.isArray(list) ? list : [list]).filter((m) => typeof m === "string" || m?.role === "user");
  return JSON.stringify(users.at(-1) ?? "");
};
/** The read tool among the request's tools, as a call of README.md: acp-edge's `read`, Claude Code's `Read`. */
function readCall(body) {
  const names = new Set((body?.tools ?? []).map((t) => t?.name));
  if (names.has("read")) return { name: "read", input: { path: "README.md" } };
  if (names.has("Read")) return { name: "Read", input: { file_path: join(project, "README.md") } };
  return undefined;
}
const toolResults = (body) => (JSON.stringify(body?.messages ?? []).match(/"tool_result"/g) ?? []).length;
const model = await startFakeModelServer([], {
  reply: (request) => {
    const last = lastUserText(request.body);
    if (last.includes(LONG_MARK)) return { text: longText, chunkSize: 40 };
    const call = readCall(request.body);
    if (JSON.stringify(request.body?.messages ?? []).includes(TOOL_MARK) && call && toolResults(request.body) < TOOL_STEPS) return { toolCalls: [call] };
    return { text: "Hello there, all good." };
  },
});

/** How long the model server was busy (request in → reply written) within the requests from `from` on: the union of their spans. */
function modelShare(from) {
  const spans = model.requests.slice(from).filter((r) => r.answeredAt !== undefined).map((r) => [r.receivedAt, r.answeredAt]).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [start, stop] of spans) {
    if (stop <= end) continue;
    total += stop - Math.max(start, end);
    end = stop;
  }
  return { busy: total, requests: spans.length };
}

// ---------- contenders ----------
function installPeers() {
  const reuse = args.indexOf("--peers");
  const prefix = reuse >= 0 ? resolve(args[reuse + 1]) : join(work, "peers");
  const packages = ["@agentclientprotocol/claude-agent-acp", "@zed-industries/codex-acp"];
  const result = reuse >= 0 ? { status: 0 } : spawnSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", ...packages], {
    encoding: "utf8",
    env: { ...process.env, npm_config_cache: join(work, "npm-cache") },
  });
  const why = result.status === 0 ? undefined : (result.stderr || result.stdout || String(result.error)).trim().split("\n").slice(-3).join(" ");
  const version = (name) => {
    try {
      return JSON.parse(readFileSync(join(prefix, "node_modules", name, "package.json"), "utf8")).version;
    } catch {
      return undefined;
    }
  };
  const codexDir = join(prefix, "node_modules", "@zed-industries");
  const codexNative = existsSync(codexDir)
    ? readdirSync(codexDir).filter((d) => d.startsWith("codex-acp-")).map((d) => join(codexDir, d, "bin", "codex-acp")).find(existsSync)
    : undefined;
  return { prefix, why, claude: version("@agentclientprotocol/claude-agent-acp"), codex: version("@zed-industries/codex-acp"), codexNative };
}

const edgeEnv = (home) => ({ ACP_EDGE_HOME: home, ANTHROPIC_API_KEY: "sk-ant-fake-bench", ANTHROPIC_BASE_URL: `${model.url}/v1` });
const edgeArgs = ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"];

function contenders(peers) {
  const home = join(work, "edge-home");
  mkdirSync(home, { recursive: true });
  const list = [
    { name: "acp-edge node dist/cli.js", command: process.env.NODE ?? "node", args: [join(root, "dist", "cli.js"), ...edgeArgs], env: edgeEnv(home) },
    { name: "acp-edge bun dist/cli.js", command: join(bin, "bun"), args: [join(root, "dist", "cli.js"), ...edgeArgs], env: edgeEnv(home) },
    { name: "acp-edge deno dist/cli.js", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "dist", "cli.js"), ...edgeArgs], env: { ...edgeEnv(home), DENO_DIR: join(work, "deno-dir"), DENO_NO_UPDATE_CHECK: "1" } },
  ];
  // --against DIR: the same agent from another checkout's dist/ (built there), interleaved with this one: before and after in one run.
  const against = args.indexOf("--against");
  if (against >= 0) {
    const other = join(resolve(args[against + 1]), "dist", "cli.js");
    const otherHome = join(work, "other-home");
    mkdirSync(otherHome, { recursive: true });
    list.push(
      { name: "other build node", command: process.env.NODE ?? "node", args: [other, ...edgeArgs], env: edgeEnv(otherHome) },
      { name: "other build bun", command: join(bin, "bun"), args: [other, ...edgeArgs], env: edgeEnv(otherHome) },
      { name: "other build deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", other, ...edgeArgs], env: { ...edgeEnv(otherHome), DENO_DIR: join(work, "deno-dir"), DENO_NO_UPDATE_CHECK: "1" } },
    );
  }
  const binary = join(root, "release", "acp-edge");
  if (existsSync(binary)) list.push({ name: "acp-edge binary", command: binary, args: edgeArgs, env: edgeEnv(home) });
  else list.push({ name: "acp-edge binary", skip: "npm run build:binary failed" });

  const claudeBin = join(peers.prefix, "node_modules", "@agentclientprotocol", "claude-agent-acp", "dist", "index.js");
  const claudeHome = join(work, "claude-home");
  mkdirSync(claudeHome, { recursive: true });
  list.push(
    peers.claude && existsSync(claudeBin)
      ? {
          name: `claude-agent-acp ${peers.claude}`,
          command: process.env.NODE ?? "node",
          args: [claudeBin],
          // As root, Claude Code refuses the permission mode the adapter starts it in unless told it runs in a sandbox.
          env: { HOME: claudeHome, ANTHROPIC_API_KEY: "sk-ant-fake-bench", ANTHROPIC_BASE_URL: model.url, ...(process.getuid?.() === 0 ? { IS_SANDBOX: "1" } : {}) },
        }
      : { name: "claude-agent-acp", skip: `not installed: ${peers.why ?? "entry point not found"}` },
  );

  const codexHome = join(work, "codex-home");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      'model = "gpt-5"',
      'model_provider = "fake"',
      "[model_providers.fake]",
      'name = "fake"',
      `base_url = "${model.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_API_KEY"',
      "",
    ].join("\n"),
  );
  list.push(
    peers.codexNative
      ? {
          name: `codex-acp ${peers.codex} (native)`,
          command: peers.codexNative,
          args: [],
          env: { HOME: codexHome, CODEX_HOME: codexHome, FAKE_OPENAI_API_KEY: "sk-fake-bench", OPENAI_API_KEY: "sk-fake-bench" },
        }
      : { name: "codex-acp", skip: `not installed: ${peers.why ?? "native binary not found"}` },
  );
  return list;
}

// ---------- driving one agent over NDJSON ----------
/** Sum of VmRSS over a process and its descendants (Linux), in MiB. */
function treeRss(pid) {
  try {
    const children = new Map();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      } catch {}
    }
    let kib = 0;
    const visit = (p) => {
      try {
        kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
      } catch {}
      for (const c of children.get(p) ?? []) visit(c);
    };
    visit(pid);
    return kib / 1024;
  } catch {
    return undefined;
  }
}

// Permission requests are refused: the peers are timed on answers, not on tools.
const startAgent = (contender) => startPeerAgent(contender, { cwd: project, env: benchEnv(contender.env), answerPermission: () => ({ outcome: "cancelled" }) });

/**
 * One prompt: ms to the first `agent_message_chunk` and to the response, and the agent's own time per model
 * request: the turn less the time the model server was busy answering, divided by the requests it made.
 */
async function prompt(agent, sessionId, text) {
  let first;
  const requestsBefore = model.requests.length;
  const sent = performance.now();
  const listener = (message, at) => {
    const update = message.method === "session/update" ? message.params?.update : undefined;
    // The first chunk of the model's own text: an agent's notices (codex-acp warns about model metadata) do not count.
    if (first === undefined && update?.sessionUpdate === "agent_message_chunk" && /^(Hello|alpha)/.test(update.content?.text ?? "")) first = at - sent;
  };
  agent.listeners.add(listener);
  try {
    const { result, at } = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, 120_000);
    if (result?.stopReason !== "end_turn") throw new Error(`prompt ended ${result?.stopReason}`);
    if (first === undefined) throw new Error("no agent_message_chunk");
    const share = modelShare(requestsBefore);
    return { first, turn: at - sent, perStep: share.requests ? (at - sent - share.busy) / share.requests : undefined, steps: share.requests };
  } finally {
    agent.listeners.delete(listener);
  }
}

const METRICS = [
  "initialize",
  "session/new",
  "rss",
  "first chunk, 1st prompt",
  "first chunk, 3rd prompt",
  "turn, short",
  "agent time per model step, short turn",
  `agent time per model step, ${TOOL_STEPS} reads + answer`,
  "turn, 1,500 words",
];

/** One full scenario; returns the metrics it reached and why it stopped early. */
async function scenario(contender) {
  const out = {};
  const agent = startAgent(contender);
  try {
    const init = await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, 30_000);
    out.initialize = init.at - agent.started;
    if (contender.initializeOnly) return out;
    const before = performance.now();
    const created = await agent.request("session/new", { cwd: project, mcpServers: [] }, 60_000);
    out["session/new"] = created.at - before;
    out.rss = treeRss(agent.child.pid);
    const sessionId = created.result.sessionId;
    const p1 = await prompt(agent, sessionId, "Say hello.");
    out["first chunk, 1st prompt"] = p1.first;
    await prompt(agent, sessionId, "Say hello again.");
    const p3 = await prompt(agent, sessionId, "And once more.");
    out["first chunk, 3rd prompt"] = p3.first;
    out["turn, short"] = p3.turn;
    out["agent time per model step, short turn"] = p3.perStep;
    const stepwise = await prompt(agent, sessionId, `Read the README step by step (${TOOL_MARK}).`);
    if (stepwise.steps === TOOL_STEPS + 1) out[`agent time per model step, ${TOOL_STEPS} reads + answer`] = stepwise.perStep;
    const long = await prompt(agent, sessionId, `Write the long answer now (${LONG_MARK}).`);
    out["turn, 1,500 words"] = long.turn;
    return out;
  } catch (error) {
    const said = agent.stderr().trim().split("\n").filter(Boolean).at(-1);
    out.why = `${String(error.message ?? error)}${said ? ` (stderr: ${said})` : ""}`.replace(/\s+/g, " ").slice(0, 240);
    return out;
  } finally {
    agent.stop();
  }
}

// ---------- run ----------
const build = spawnSync("npm", ["run", "--silent", "build:binary"], { cwd: root, stdio: "ignore" });
if (build.status !== 0) rmSync(join(root, "release", "acp-edge"), { force: true });
const peers = installPeers();
if (peers.why) console.error(`peer install failed: ${peers.why}`);
const list = [
  { name: "floor: bare Node NDJSON echo agent", command: process.env.NODE ?? "node", args: [join(root, "bench", "echo-agent.mjs")], env: {}, initializeOnly: true },
  ...contenders(peers),
];
const only = args.indexOf("--only");
if (only >= 0) for (const c of list.slice(1)) if (!c.name.includes(args[only + 1]) && !c.name.includes("node dist")) c.skip ??= "left out (--only)";
const samples = new Map(list.map((c) => [c.name, Object.fromEntries(METRICS.map((m) => [m, []]))]));
const reasons = new Map();
for (let run = -1; run < runs; run += 1) {
  for (const contender of list) {
    if (contender.skip) continue;
    const result = await scenario(contender);
    if (result.why && !reasons.has(contender.name)) reasons.set(contender.name, result.why);
    if (run < 0) continue; // warm-up: file-system caches, first-run set-up of each agent
    for (const metric of METRICS) if (typeof result[metric] === "number") samples.get(contender.name)[metric].push(result[metric]);
  }
  if (run >= 0) process.stderr.write(`run ${run + 1}/${runs}\n`);
}

const median = (xs) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : undefined);
const base = "acp-edge node dist/cli.js";
const floor = list[0].name;
const fmt = (v, unit) => (v === undefined ? "—" : unit === "MiB" ? `${v.toFixed(1)} MiB` : `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms`);
const nodeVersion = spawnSync(process.env.NODE ?? "node", ["--version"], { encoding: "utf8" }).stdout.trim();
const bunVersion = spawnSync(join(bin, "bun"), ["--version"], { encoding: "utf8" }).stdout.trim();
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${process.platform}; node ${nodeVersion}, bun ${bunVersion}; medians of ${runs} interleaved runs`);
console.log(`ratios: ×acp-edge node (and ×echo floor for initialize)\n`);
const header = ["", ...list.map((c) => c.name)];
const rows = [header];
for (const metric of METRICS) {
  const unit = metric === "rss" ? "MiB" : "ms";
  const label = metric === "rss" ? "RSS after session/new" : metric === "initialize" ? "spawn → initialize" : metric;
  const ref = median(samples.get(base)[metric]);
  const floorRef = median(samples.get(floor).initialize);
  rows.push([
    label,
    ...list.map((c) => {
      const m = median(samples.get(c.name)[metric]);
      if (m === undefined) return c.name === floor && metric !== "initialize" ? "" : "—";
      const ratios = [ref ? `×${(m / ref).toFixed(2)}` : undefined, metric === "initialize" && floorRef ? `floor×${(m / floorRef).toFixed(2)}` : undefined];
      return `${fmt(m, unit)} (${ratios.filter(Boolean).join(", ")})`;
    }),
  ]);
}
// Markdown, one column per contender, so it pastes into docs/performance.md.
console.log(`| ${rows[0].join(" | ")} |`);
console.log(`|${rows[0].map(() => "---").join("|")}|`);
for (const row of rows.slice(1)) console.log(`| ${row.join(" | ")} |`);
// The first answer against Claude Code's adapter, the peer an editor would otherwise run.
const claude = list.find((c) => c.name.startsWith("claude-agent-acp") && !c.skip);
const claudeFirst = claude && median(samples.get(claude.name)["first chunk, 1st prompt"]);
if (claudeFirst) {
  console.log(`\nfirst chunk of the 1st prompt ÷ ${claude.name}'s (${fmt(claudeFirst, "ms")}):`);
  for (const c of list.filter((c) => !c.skip && c.name !== claude.name && c.name !== floor)) {
    const m = median(samples.get(c.name)["first chunk, 1st prompt"]);
    if (m !== undefined) console.log(`- ${c.name}: ×${(m / claudeFirst).toFixed(2)}`);
  }
}
const notes = [...list.filter((c) => c.skip).map((c) => [c.name, c.skip]), ...reasons];
if (notes.length) {
  console.log("\nmissing figures:");
  for (const [name, why] of notes) console.log(`- ${name}: ${why}`);
}
await model.close();
rmSync(work, { recursive: true, force: true });
