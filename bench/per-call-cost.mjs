// What the per-call benches share: agents on the faux model whose every turn is `commands` `bash`
// calls of `true` in a row, the time per call of one turn, and two such agents measured with their
// turns interleaved (medians after one warm-up turn each), so machine noise hits both alike.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";
import { connectNdjson } from "./ndjson-client.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");

/** `--runs N`, `--commands N`, and the runtimes to measure (`--bun`, `--deno`; Node always). */
export function perCallOptions(flags) {
  const option = (name, fallback) => (flags.includes(name) ? Number(flags[flags.indexOf(name) + 1]) : fallback);
  const targets = [{ name: "node", command: process.execPath, args: [join(root, "dist", "cli.js")] }];
  if (flags.includes("--bun")) targets.push({ name: "bun", command: join(bin, "bun"), args: [join(root, "mod.ts")] });
  if (flags.includes("--deno")) targets.push({ name: "deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts")] });
  return { runs: option("--runs", 5), commands: option("--commands", 20), targets };
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * An agent in approval `mode` with a session whose script holds `turns` turns (default `runs + 1`) of
 * `commands` calls of `command`. `settings` become the user's settings.json; `prepare(dir)` sets up its
 * folder (dir/project is the cwd) and returns extra environment variables.
 */
export async function startAgent(target, { mode, runs, turns = runs + 1, commands, command = "true", settings, prepare }) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-per-call-"));
  const project = join(dir, "project");
  mkdirSync(project);
  if (settings) {
    mkdirSync(join(dir, "home"));
    writeFileSync(join(dir, "home", "settings.json"), JSON.stringify(settings));
  }
  const extra = prepare ? prepare(dir) : {};
  const turn = () => [...Array.from({ length: commands }, (_, i) => ({ toolCalls: [{ id: `c${i}`, name: "bash", input: { command } }] })), { text: "done" }];
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify(Array.from({ length: turns }, turn).flat()));
  const agent = connectNdjson(
    { ...target, args: [...target.args, "agent", "stdio", "--model", "faux/script", "--approval-mode", mode, "--no-session"] },
    { cwd: project, env: benchEnv({ ACP_EDGE_HOME: join(dir, "home"), ACP_EDGE_FAUX_SCRIPT: script, ...extra }) },
  );
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answered;
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] }).answered;
  return {
    /** Milliseconds per call of one turn. */
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

/** Medians per call of the two cases `a` and `b` (each `{ mode, prepare? }`), their turns interleaved. */
export async function comparePerCall(target, { runs, commands }, a, b) {
  const first = await startAgent(target, { ...a, runs, commands });
  const second = await startAgent(target, { ...b, runs, commands });
  try {
    await first.turn();
    await second.turn();
    const times = { a: [], b: [] };
    for (let i = 0; i < runs; i++) {
      times.a.push(await first.turn());
      times.b.push(await second.turn());
    }
    return { a: median(times.a), b: median(times.b) };
  } finally {
    await first.close();
    await second.close();
  }
}
