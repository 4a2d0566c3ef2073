// A link flood: one small `session/prompt` (or `_session/steering`) naming the same 2 MiB project file
// hundreds of times, as a hostile client would send it, then a plain follow-up prompt in the same
// session. Prints, per case: the answer (stop reason or error code), the time to it, the request's
// size, the bytes of the message's echo the client got back (`user_message_chunk`s: a turn started by
// steering is shown to its own client too), the agent's peak resident memory growth (VmHWM, Linux only),
// and how the follow-up ended. Each case spawns a fresh `agent stdio` on the offline faux echo model.
// Usage: npm run bench:links  (or `node bench/link-flood.mjs [--bun|--deno]` after `npm run build`).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { benchEnv } from "./clean-env.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const runtime = flags.includes("--bun") ? "bun" : flags.includes("--deno") ? "deno" : "node";
/** Past this a case is reported as stalled (the agent is killed). */
const STALL_MS = 60_000;

const command = {
  node: [process.execPath, [join(root, "dist", "cli.js")]],
  bun: [join(bin, "bun"), [join(root, "mod.ts")]],
  deno: [join(bin, "deno"), ["run", "-A", "--quiet", join(root, "mod.ts")]],
}[runtime];

const cases = [
  { name: "session/prompt: one 2 MiB file linked 400 times", method: "session/prompt", links: 400 },
  { name: "_session/steering (idle): one 2 MiB file linked 2,400 times", method: "_session/steering", links: 2400 },
  { name: "_session/steering promptRequired (idle): 2,400 links", method: "_session/steering", links: 2400, promptRequired: true },
  { name: "_session/steering (idle): one 300 KB file linked 400 times (fits the budget: read once)", method: "_session/steering", links: 400, file: "mid.txt" },
];

function peakMiB(pid) {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  } catch {
    return NaN; // the agent is gone
  }
}

async function measure(kase) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-links-"));
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(home);
  mkdirSync(project);
  writeFileSync(join(project, "big.txt"), "0123456789abcdef\n".repeat(Math.floor((2 * 1024 * 1024 - 1) / 17)));
  writeFileSync(join(project, "mid.txt"), "0123456789abcdef\n".repeat(Math.floor(300_000 / 17)));
  const env = benchEnv({ HOME: dir, ACP_EDGE_HOME: home, NO_COLOR: "1" });
  const child = spawn(command[0], [...command[1], "agent", "stdio", "--model", "faux/echo"], { cwd: project, env, stdio: ["pipe", "pipe", "ignore"] });
  const pending = new Map();
  let buffer = "";
  let echoed = 0;
  let exited = false;
  child.on("exit", () => {
    exited = true;
    for (const done of pending.values()) done({ error: { code: "agent exited" } });
  });
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    buffer += chunk;
    let cut;
    while ((cut = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 1);
      const message = JSON.parse(line);
      if (message.params?.update?.sessionUpdate === "user_message_chunk") echoed += line.length;
      if (message.id !== undefined && !message.method) pending.get(message.id)?.(message);
    }
  });
  let nextId = 1;
  const request = (method, params) => {
    const id = nextId++;
    const body = `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
    let timer;
    const answer = new Promise((done) => {
      pending.set(id, done);
      timer = setTimeout(() => done({ stalled: true }), STALL_MS);
      child.stdin.write(body);
    }).finally(() => clearTimeout(timer));
    return { answer, size: body.length };
  };
  await request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answer;
  const { sessionId } = (await request("session/new", { cwd: project, mcpServers: [] }).answer).result;
  // Settle the session's first turn of setup with a plain prompt, so only the flood is measured.
  await request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] }).answer;
  const before = peakMiB(child.pid);
  const file = kase.file ?? "big.txt";
  const link = { type: "resource_link", uri: pathToFileURL(join(project, file)).href, name: file };
  const prompt = [{ type: "text", text: "read these" }, ...Array.from({ length: kase.links }, () => link)];
  const params = { sessionId, prompt, ...(kase.promptRequired ? { _meta: { steering: { idleBehavior: "promptRequired" } } } : {}) };
  const echoedBefore = echoed;
  const started = performance.now();
  const flood = request(kase.method, params);
  const answer = await flood.answer;
  const ms = performance.now() - started;
  const peak = peakMiB(child.pid);
  let back = echoed - echoedBefore;
  let followUp = "agent gone";
  if (!exited) {
    // Awaited before the echo is counted: a turn the message started has ended (and shown all of it) by then.
    const next = await request("session/prompt", { sessionId, prompt: [{ type: "text", text: "and now?" }] }).answer;
    back = echoed - echoedBefore;
    followUp = next.stalled ? "stalled" : next.error ? `error ${next.error.code}: ${String(next.error.message).slice(0, 60)}` : next.result.stopReason;
  }
  child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  const outcome = answer.stalled
    ? `stalled > ${STALL_MS / 1000} s`
    : answer.error
      ? `error ${answer.error.code}`
      : (answer.result.stopReason ?? answer.result.outcome);
  return { outcome, ms, size: flood.size, back, growth: peak - before, followUp };
}

const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`acp-edge ${runtime}: link floods over stdio (faux/echo; RSS growth is the agent's peak over the flood)`);
console.log("| case | answer | time | request | echo back to client | peak RSS growth | follow-up prompt |");
console.log("|---|---|---|---|---|---|---|");
for (const kase of cases) {
  const r = await measure(kase);
  console.log(`| ${kase.name} | ${r.outcome} | ${r.ms.toFixed(0)} ms | ${kib(r.size)} | ${kib(r.back)} | +${r.growth.toFixed(1)} MiB | ${r.followUp} |`);
}
