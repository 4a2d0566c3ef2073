// What hooks add to each tool call: one agent process per case runs a scripted turn of `--commands N`
// (default 20) `bash` calls of `true`, one after another, in `yolo`: once with a HOME whose
// `.claude/settings.json` holds no hooks, once with a PreToolUse and a PostToolUse hook on Bash that
// read their input and exit 0 (`cat >/dev/null`), turns interleaved. The turn's time divided by N is the
// time per call. Printed per runtime: both figures and the difference (two hook runs per call), medians
// of `--runs` turns (default 5) after one warm-up turn each. The faux model answers at once.
// Usage: npm run build && node bench/hook-cost.mjs [--runs N] [--commands N] [--bun] [--deno]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";
import { connectNdjson } from "./ndjson-client.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const option = (name, fallback) => (flags.includes(name) ? Number(flags[flags.indexOf(name) + 1]) : fallback);
const runs = option("--runs", 5);
const commands = option("--commands", 20);
const targets = [{ name: "node", command: process.execPath, args: [join(root, "dist", "cli.js")] }];
if (flags.includes("--bun")) targets.push({ name: "bun", command: join(bin, "bun"), args: [join(root, "mod.ts")] });
if (flags.includes("--deno")) targets.push({ name: "deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts")] });

function turn() {
  return [...Array.from({ length: commands }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: "bash", input: { command: "true" } }] })), { text: "done" }];
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const hook = { matcher: "Bash", hooks: [{ type: "command", command: "cat >/dev/null" }] };

/** An agent whose user home has the hooks (or none), with a session whose script holds `runs + 1` turns. */
async function startAgent(target, withHooks) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-hooks-"));
  const project = join(dir, "project");
  const userHome = join(dir, "user");
  mkdirSync(project);
  mkdirSync(join(userHome, ".claude"), { recursive: true });
  writeFileSync(join(userHome, ".claude", "settings.json"), JSON.stringify(withHooks ? { hooks: { PreToolUse: [hook], PostToolUse: [hook] } } : {}));
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify(Array.from({ length: runs + 1 }, turn).flat()));
  const agent = connectNdjson(
    { ...target, args: [...target.args, "agent", "stdio", "--model", "faux/script", "--approval-mode", "yolo", "--no-session"] },
    { cwd: project, env: benchEnv({ HOME: userHome, ACP_EDGE_HOME: join(dir, "home"), ACP_EDGE_FAUX_SCRIPT: script }) },
  );
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answered;
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] }).answered;
  return {
    async turn() {
      const { sent, answered } = agent.request("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text: "go" }] });
      const { at } = await answered;
      return (at - sent) / commands;
    },
    async close() {
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function measure(target) {
  const plain = await startAgent(target, false);
  const hooked = await startAgent(target, true);
  try {
    await plain.turn();
    await hooked.turn();
    const times = { plain: [], hooked: [] };
    for (let i = 0; i < runs; i++) {
      times.plain.push(await plain.turn());
      times.hooked.push(await hooked.turn());
    }
    return { plain: median(times.plain), hooked: median(times.hooked) };
  } finally {
    await plain.close();
    await hooked.close();
  }
}

for (const target of targets) {
  const { plain, hooked } = await measure(target);
  console.log(`${target.name}: per call ${plain.toFixed(2)} ms without hooks, ${hooked.toFixed(2)} ms with a PreToolUse and a PostToolUse hook: +${(hooked - plain).toFixed(2)} ms (median of ${runs} turns of ${commands} calls)`);
}
