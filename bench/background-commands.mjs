// Background commands under a flood: a scripted model starts `yes` in the background (hundreds of MB
// a second), reads it 20 times (`--reads N`) with bash_output (wait_ms 100), then stops it with bash_stop. Printed:
// the agent's peak resident memory against a baseline turn without the flood (the unread buffer is
// bounded: 256 KiB per command, 50 KiB per read), the bytes reported dropped, the largest read, and
// how long bash_stop took (SIGTERM to the tree until its result; bench clock, from the call's
// `in_progress` update to its result). One agent process per run; medians of `--runs` runs.
// Usage: npm run build && node bench/background-commands.mjs [--runs N] [--reads N] [--bun] [--deno]   (Linux: reads /proc)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const runsFlag = flags.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(flags[runsFlag + 1]) : 3;
const targets = [{ name: "node", command: process.execPath, args: [join(root, "dist", "cli.js")] }];
if (flags.includes("--bun")) targets.push({ name: "bun", command: join(bin, "bun"), args: [join(root, "mod.ts")] });
if (flags.includes("--deno")) targets.push({ name: "deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts")] });

const readsFlag = flags.indexOf("--reads");
const READS = readsFlag >= 0 ? Number(flags[readsFlag + 1]) : 20;
function script(flood) {
  if (!flood) return [{ toolCalls: [{ id: "quiet", name: "bash", input: { command: "true" } }] }, { text: "done" }];
  return [
    { toolCalls: [{ id: "start", name: "bash", input: { command: "exec yes flood-line-of-some-length", background: true } }] },
    ...Array.from({ length: READS }, (_, i) => ({ toolCalls: [{ id: `read${i}`, name: "bash_output", input: { id: "bg1", wait_ms: 100 } }] })),
    { toolCalls: [{ id: "stop", name: "bash_stop", input: { id: "bg1" } }] },
    { text: "done" },
  ];
}

function peakMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** One agent, one turn; resolves with its figures. */
async function once(target, flood) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-bg-"));
  const project = join(dir, "project");
  mkdirSync(project);
  const scriptFile = join(dir, "script.json");
  writeFileSync(scriptFile, JSON.stringify(script(flood)));
  const child = spawn(target.command, [...target.args, "agent", "stdio", "--model", "faux/script", "--approval-mode", "yolo", "--no-session"], {
    env: { ...process.env, ACP_EDGE_HOME: join(dir, "home"), ACP_EDGE_FAUX_SCRIPT: scriptFile },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const pending = new Map();
  let nextId = 1;
  let buffer = "";
  let dropped = 0;
  let largestRead = 0;
  let stopStarted = 0;
  let stopMs = 0;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let cut = buffer.indexOf("\n"); cut >= 0; cut = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 1);
      const update = message.params?.update;
      if (update?.sessionUpdate === "tool_call_update") {
        const summary = update._meta?.["acp-edge/summary"];
        if (update.toolCallId === "stop" && update.status === "in_progress") stopStarted = performance.now();
        if (update.toolCallId === "stop" && update.status === "completed") stopMs = performance.now() - stopStarted;
        if (summary && typeof summary.droppedBytes === "number" && update.status === "completed") {
          dropped += summary.droppedBytes;
          const text = update.rawOutput?.[0]?.text ?? "";
          largestRead = Math.max(largestRead, Buffer.byteLength(text));
        }
      }
      const waiter = message.id !== undefined && pending.get(message.id);
      if (waiter) {
        pending.delete(message.id);
        message.error ? waiter.reject(new Error(JSON.stringify(message.error))) : waiter.resolve(message.result);
      }
    }
  });
  const request = (method, params) => {
    const id = nextId++;
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return new Promise((res, rej) => pending.set(id, { resolve: res, reject: rej }));
  };
  await request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await request("session/new", { cwd: project, mcpServers: [] });
  await request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const peak = peakMemory(child.pid);
  await new Promise((done) => {
    child.on("exit", done);
    child.stdin.end();
  });
  rmSync(dir, { recursive: true, force: true });
  return { peak, dropped, largestRead, stopMs };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
console.log(`background commands under a flood (${READS} reads of a background \`yes\`, medians of ${runs} runs)`);
for (const target of targets) {
  const base = [];
  const flood = [];
  for (let i = 0; i < runs; i++) {
    base.push(await once(target, false));
    flood.push(await once(target, true));
  }
  console.log(
    `${target.name.padEnd(5)} peak RSS baseline ${mib(median(base.map((r) => r.peak)))}, with the flood ${mib(median(flood.map((r) => r.peak)))}; ` +
      `reported dropped ${mib(median(flood.map((r) => r.dropped)))}; largest read ${(median(flood.map((r) => r.largestRead)) / 1024).toFixed(1)} KiB; ` +
      `bash_stop ${median(flood.map((r) => r.stopMs)).toFixed(0)} ms`,
  );
}
