// What the sandbox adds to each command: one agent process per mode runs a scripted turn of
// `--commands N` (default 20) `bash` calls of `true`, one after another, in `yolo` (never sandboxed)
// and in `auto` (each command under bubblewrap), turns interleaved; the turn's time divided by N is the
// time per command. Printed per runtime: both figures, the difference and the ratio (sandboxed /
// unsandboxed), medians of `--runs` turns (default 5) after one warm-up turn each. The faux model
// answers at once, so the time per command is the agent running it: spawn, wait, result.
// Usage: npm run build && node bench/sandbox-cost.mjs [--runs N] [--commands N] [--bun] [--deno]   (Linux with bubblewrap)
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

/** One turn: `commands` bash calls in a row, then a word. */
function turn() {
  return [...Array.from({ length: commands }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: "bash", input: { command: "true" } }] })), { text: "done" }];
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** An agent in `mode` with a session whose script holds `runs + 1` turns. */
async function startAgent(target, mode) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-sandbox-"));
  const project = join(dir, "project");
  mkdirSync(project);
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify(Array.from({ length: runs + 1 }, turn).flat()));
  const agent = connectNdjson(
    { ...target, args: [...target.args, "agent", "stdio", "--model", "faux/script", "--approval-mode", mode, "--no-session"] },
    { cwd: project, env: benchEnv({ ACP_EDGE_HOME: join(dir, "home"), ACP_EDGE_FAUX_SCRIPT: script }) },
  );
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answered;
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] }).answered;
  return {
    /** Milliseconds per command of one turn. */
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

/** Medians per command, unsandboxed (`yolo`) and sandboxed (`auto`), their turns interleaved after one warm-up each. */
async function measure(target) {
  const plain = await startAgent(target, "yolo");
  const confined = await startAgent(target, "auto");
  try {
    await plain.turn();
    await confined.turn();
    const times = { plain: [], confined: [] };
    for (let i = 0; i < runs; i++) {
      times.plain.push(await plain.turn());
      times.confined.push(await confined.turn());
    }
    return { plain: median(times.plain), confined: median(times.confined) };
  } finally {
    await plain.close();
    await confined.close();
  }
}

for (const target of targets) {
  const { plain, confined } = await measure(target);
  console.log(
    `${target.name}: per command ${plain.toFixed(2)} ms unsandboxed, ${confined.toFixed(2)} ms sandboxed: +${(confined - plain).toFixed(2)} ms, ratio ${(confined / plain).toFixed(2)} (median of ${runs} turns of ${commands} commands)`,
  );
}
