// Hostile project files: peak memory (VmHWM) and time of `session/new` when the project's AGENTS.md
// is a link to /dev/zero, a 1 GB sparse file, a FIFO nobody writes to, or a link to
// /proc/self/environ, when its skills are such files or frontmatters built to cost (alias bombs,
// deep nesting), and with thousands of command files — next to a plain project. Each case spawns a fresh agent with a minimal
// environment on the offline faux model, sends initialize and session/new over stdio, and reads the
// agent's peak resident memory from /proc (Linux only).
// Usage: npm run bench:hostile  (or `node bench/hostile-project.mjs [--bun|--deno] [--runs N] [--case TEXT]` after
// `npm run build`; with several runs each row shows the median time and the largest growth).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const runtime = flags.includes("--bun") ? "bun" : flags.includes("--deno") ? "deno" : "node";
const runsFlag = flags.indexOf("--runs");
const runs = runsFlag >= 0 ? Number(flags[runsFlag + 1]) : 1;
const caseFlag = flags.indexOf("--case");
const only = caseFlag >= 0 ? flags[caseFlag + 1] : undefined;
/** A FIFO stalled `session/new` before; past this the case is reported as stalled. */
const STALL_MS = 10_000;

const command = {
  node: [process.execPath, [join(root, "dist", "cli.js")]],
  bun: [join(bin, "bun"), [join(root, "mod.ts")]],
  deno: [join(bin, "deno"), ["run", "-A", "--quiet", join(root, "mod.ts")]],
}[runtime];

const cases = {
  "plain project": () => {},
  "AGENTS.md -> /dev/zero": (project) => symlinkSync("/dev/zero", join(project, "AGENTS.md")),
  "AGENTS.md: 1 GB sparse file": (project) => execFileSync("truncate", ["-s", "1G", join(project, "AGENTS.md")]),
  "CLAUDE.md: a FIFO": (project) => execFileSync("mkfifo", [join(project, "CLAUDE.md")]),
  "AGENTS.md -> /proc/self/environ": (project) => symlinkSync("/proc/self/environ", join(project, "AGENTS.md")),
  ".claude/skills: SKILL.md -> /dev/zero, a FIFO, 1 GB": (project) => {
    for (const name of ["zero", "fifo", "big"]) mkdirSync(join(project, ".claude", "skills", name), { recursive: true });
    symlinkSync("/dev/zero", join(project, ".claude", "skills", "zero", "SKILL.md"));
    execFileSync("mkfifo", [join(project, ".claude", "skills", "fifo", "SKILL.md")]);
    execFileSync("truncate", ["-s", "1G", join(project, ".claude", "skills", "big", "SKILL.md")]);
  },
  ".claude/skills: 200 frontmatters, alias bombs and deep nesting": (project) => {
    const bomb = Array.from({ length: 9 }, (_, i) => `l${i + 1}: &l${i + 1} [*l${i}, *l${i}, *l${i}, *l${i}]`).join("\n");
    for (let i = 0; i < 200; i++) {
      const folder = join(project, ".claude", "skills", `s${i}`);
      mkdirSync(folder, { recursive: true });
      const block = i % 2 ? `l0: &l0 [lol, lol]\n${bomb}` : `a: ${"[".repeat(7000)}${"]".repeat(7000)}`;
      writeFileSync(join(folder, "SKILL.md"), `---\nname: s${i}\ndescription: d\n${block}\n---\nbody\n`);
    }
  },
  ".claude/commands: 5,000 command files": (project) => {
    for (let i = 0; i < 5000; i++) {
      const folder = join(project, ".claude", "commands", `g${i % 50}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `c${i}.md`), `---\ndescription: command ${i}\nargument-hint: [a] [b]\n---\nDo $1 with $2.\n`);
    }
  },
};

/** Peak resident memory of a process so far, in MiB. */
function peakMiB(pid) {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  return kb / 1024;
}

async function measure(name, plant) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-hostile-"));
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(home);
  mkdirSync(project);
  plant(project);
  const env = benchEnv({ HOME: dir, ACP_EDGE_HOME: home, NO_COLOR: "1" });
  const child = spawn(command[0], [...command[1], "agent", "stdio", "--model", "faux/echo", "--no-session"], { cwd: project, env, stdio: ["pipe", "pipe", "ignore"] });
  const pending = new Map();
  let buffer = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    buffer += chunk;
    let cut;
    while ((cut = buffer.indexOf("\n")) >= 0) {
      const message = JSON.parse(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 1);
      if (message.id !== undefined && !message.method) pending.get(message.id)?.(message);
    }
  });
  let nextId = 1;
  const request = (method, params) =>
    new Promise((done) => {
      const id = nextId++;
      pending.set(id, done);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const before = peakMiB(child.pid);
  const started = performance.now();
  let timer;
  const answer = await Promise.race([
    request("session/new", { cwd: project, mcpServers: [] }),
    new Promise((done) => (timer = setTimeout(() => done({ stalled: true }), STALL_MS))),
  ]);
  clearTimeout(timer);
  const ms = performance.now() - started;
  const peak = peakMiB(child.pid);
  child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  const outcome = answer.stalled ? `stalled > ${STALL_MS / 1000} s` : answer.error ? `error ${answer.error.code}` : "ok";
  return { name, outcome, ms, before, peak };
}

console.log(`acp-edge ${runtime}: session/new in a hostile project (peak RSS of the agent, MiB)`);
console.log("| case | session/new | time | peak RSS before | peak RSS after | growth |");
console.log("|---|---|---|---|---|---|");
for (const [name, plant] of Object.entries(cases)) {
  if (only && !name.includes(only)) continue;
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await measure(name, plant));
  const ms = results.map((r) => r.ms).sort((a, b) => a - b)[Math.floor(results.length / 2)];
  const worst = results.reduce((a, b) => (b.peak - b.before > a.peak - a.before ? b : a));
  const outcomes = [...new Set(results.map((r) => r.outcome))].join(", ");
  console.log(`| ${name} | ${outcomes} | ${ms.toFixed(0)} ms | ${worst.before.toFixed(1)} | ${worst.peak.toFixed(1)} | +${(worst.peak - worst.before).toFixed(1)} |`);
}
