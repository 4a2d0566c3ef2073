// Large images in a prompt: how long the agent takes to answer a prompt carrying one image of 12 MiB
// and of 8 MiB (past every per-message budget: refused -32602 prompt_too_large), and of 500,000
// base64 characters (under the 512,000-byte budget of faux/echo: checked and answered). Bench clock,
// from the request's line handed to stdin to its answer's arrival; medians of `--runs` prompts on one
// agent process per runtime, after one warm-up prompt of each size.
// Usage: npm run build && node bench/large-image.mjs [--runs N] [--bun] [--deno]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";
import { connectNdjson } from "./ndjson-client.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const runsFlag = flags.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(flags[runsFlag + 1]) : 5;
const targets = [{ name: "node", command: process.execPath, args: [join(root, "dist", "cli.js")] }];
if (flags.includes("--bun")) targets.push({ name: "bun", command: join(bin, "bun"), args: [join(root, "mod.ts")] });
if (flags.includes("--deno")) targets.push({ name: "deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts")] });

const MiB = 1024 * 1024;
const SIZES = [
  { label: "12 MiB", chars: 12 * MiB },
  { label: "8 MiB", chars: 8 * MiB },
  { label: "500,000 chars", chars: 500_000 },
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const target of targets) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-image-"));
  const agent = connectNdjson(
    { ...target, args: [...target.args, "agent", "stdio", "--model", "faux/echo", "--no-session"] },
    { cwd: dir, env: benchEnv({ ACP_EDGE_HOME: join(dir, "home") }) },
  );
  try {
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answered;
    const { result } = await agent.request("session/new", { cwd: dir, mcpServers: [] }).answered;
    const row = [];
    for (const size of SIZES) {
      const data = "QUFB".repeat(size.chars / 4);
      const prompt = [{ type: "text", text: "look" }, { type: "image", data, mimeType: "image/png" }];
      const times = [];
      let outcome = "";
      for (let run = 0; run <= runs; run++) {
        const { sent, answered } = agent.request("session/prompt", { sessionId: result.sessionId, prompt });
        const answer = await answered.then(
          ({ result: r, at }) => ({ at, outcome: r.stopReason }),
          (error) => ({ at: performance.now(), outcome: /"code":"([a-z_]+)"/.exec(String(error))?.[1] ?? String(error).slice(0, 80) }),
        );
        outcome = answer.outcome;
        if (run > 0) times.push(answer.at - sent);
      }
      row.push(`${size.label}: ${outcome} in ${median(times).toFixed(1)} ms`);
    }
    console.log(`${target.name.padEnd(5)} ${row.join("; ")}`);
  } finally {
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
