// What a provider web search costs a session afterwards: one prompt whose answer ran Anthropic's server
// search (5 results, ~3 KB of encrypted content each), then plain prompts, against a fake Anthropic
// endpoint that bills every request body by one simulation of Anthropic's prompt cache. The search
// blocks go back with every later request; with caching on they should be read from the cache, not
// written again, which only holds when each request re-sends the one before it byte for byte.
// Rows: promptCache short (the default) and off. Columns: requests, characters sent, billed input
// (tokens at the input price), the same bodies uncached, the share read from the cache, and how many
// requests did not start with the request before them (the prefix broke).
// Usage: npm run bench:search   (or `bun bench/web-search-cost.mjs [--prompts N]` after `npm run build`)
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AnthropicCacheSim, billedInput, requestBlocks } from "../tests/helpers/anthropic-cache-sim.ts";
import { startFakeModelServer } from "../tests/helpers/fake-model-server.ts";
import { benchEnv } from "./clean-env.mjs";
import { startPeerAgent } from "./peer-client.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const args = process.argv.slice(2);
const promptsFlag = args.indexOf("--prompts");
const PROMPTS = promptsFlag >= 0 ? Number(args[promptsFlag + 1]) : 6;
const work = mkdtempSync(join(tmpdir(), "acp-edge-search-"));
const project = join(work, "project");
mkdirSync(project, { recursive: true });

// Opaque like the real thing: base64 of pseudo-random bytes, ~3 KB per result.
function encrypted(seed) {
  let x = seed * 2654435761 >>> 0;
  const bytes = new Uint8Array(2300);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  return Buffer.from(bytes).toString("base64");
}
const SEARCH = {
  query: "acp-edge v5 migration guide",
  results: Array.from({ length: 5 }, (_, i) => ({ url: `https://docs.example.com/page-${i}`, title: `Result ${i}`, encryptedContent: encrypted(i + 1) })),
};

const model = await startFakeModelServer([], {
  simulateCache: true,
  reply: (request) => {
    const users = (request.body?.messages ?? []).filter((m) => m.role === "user").length;
    return users === 1 ? { searches: [SEARCH], text: "The guide says to rename the config file.", citations: [{ url: SEARCH.results[0].url, title: "Result 0" }] } : { text: `Answer ${users}.` };
  },
});

function edge(promptCache) {
  const home = join(work, `home-${promptCache}`);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "settings.json"), JSON.stringify({ promptCache, maxRetries: 0 }));
  return {
    name: `promptCache ${promptCache}`,
    command: process.env.NODE ?? "node",
    args: [join(root, "dist", "cli.js"), "agent", "stdio", "--model", "anthropic/claude-sonnet-4-5", "--approval-mode", "yolo"],
    env: { ACP_EDGE_HOME: home, ANTHROPIC_API_KEY: "sk-ant-fake-bench", ANTHROPIC_BASE_URL: `${model.url}/v1` },
  };
}

async function measure(contender) {
  const agent = startPeerAgent(contender, { cwd: project, env: benchEnv(contender.env), answerPermission: () => undefined });
  const first = model.requests.length;
  try {
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, 120_000);
    const { sessionId } = (await agent.request("session/new", { cwd: project, mcpServers: [] }, 120_000)).result;
    for (let p = 1; p <= PROMPTS; p += 1) {
      const { result } = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: p === 1 ? "find the migration guide for v5" : `question ${p}` }] }, 120_000);
      if (result?.stopReason !== "end_turn") throw new Error(`prompt ${p} ended ${result?.stopReason}`);
    }
  } finally {
    agent.stop();
  }
  const cache = new AnthropicCacheSim();
  const out = { requests: 0, chars: 0, billed: 0, uncached: 0, read: 0, broken: 0 };
  let before;
  for (const request of model.requests.slice(first)) {
    const usage = cache.bill(request.body);
    const blocks = requestBlocks(request.body).map((b) => b.text);
    if (before && !before.every((b, i) => b === blocks[i])) out.broken += 1;
    before = blocks;
    out.requests += 1;
    out.chars += JSON.stringify(request.body).length;
    out.billed += billedInput(usage);
    out.uncached += usage.input + usage.cacheRead + usage.cacheWrite;
    out.read += usage.cacheRead;
  }
  return out;
}

try {
  const rows = [];
  for (const mode of ["short", "off"]) rows.push([mode, await measure(edge(mode))]);
  console.log(`web search cost: one search (5 results, ${SEARCH.results[0].encryptedContent.length} characters of encrypted content each), then ${PROMPTS - 1} plain prompts`);
  console.log("contender          requests  chars sent  billed input  uncached  read from cache  prefix broke");
  for (const [mode, r] of rows) {
    const share = r.uncached > 0 ? `${((100 * r.read) / r.uncached).toFixed(1)}%` : "-";
    console.log(`promptCache ${mode.padEnd(6)} ${String(r.requests).padStart(9)} ${String(r.chars).padStart(11)} ${String(Math.round(r.billed)).padStart(13)} ${String(r.uncached).padStart(9)} ${share.padStart(16)} ${String(r.broken).padStart(13)}`);
  }
} finally {
  await model.close();
  rmSync(work, { recursive: true, force: true });
}
