// Cold start: time from spawn to the `initialize` response, per runtime and
// launch style (bundled dist/, sources, the single file, the compiled binary),
// next to a bare no-dependency echo agent on the same runtime (the floor), and
// the size of each artifact. Prints medians; compare rows of one run, not across machines.
// Usage: npm run bench  (or `node bench/cold-start.mjs [runs] [--installed] [--node PATH]...` after `npm run build`)
// --node PATH adds the echo agent and dist/cli.js on that Node binary (another release line), interleaved with the rest.
// --installed also packs the package, installs the tarball into a temporary project (dependencies
// from the registry) and times `npx acp-edge`, `bunx --bun acp-edge` and `deno run -A npm:acp-edge` there.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";

const loadAtStart = loadavg()[0];
const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const runs = Number(flags.find((f) => /^\d+$/.test(f)) ?? 15);
const installed = flags.includes("--installed");
const otherNodes = flags.flatMap((flag, i) => (flag === "--node" && flags[i + 1] ? [flags[i + 1]] : []));
const home = mkdtempSync(join(tmpdir(), "acp-edge-bench-"));

const echo = join(root, "bench", "echo-agent.mjs");
const sdk = join(root, "bench", "sdk-agent.mjs");
const cli = join(root, "dist", "cli.js");
const mod = join(root, "mod.ts");
const deno = (script, ...args) => ({ command: join(bin, "deno"), args: ["run", "-A", "--quiet", script, ...args] });

// The release artifacts are built here so the bench measures the current source.
const binary = join(root, "release", "acp-edge");
const single = join(root, "release", "acp-edge.mjs");
const built = spawnSync("npm", ["run", "--silent", "build:binary"], { cwd: root, stdio: "ignore" });
const builtSingle = spawnSync("npm", ["run", "--silent", "build:single"], { cwd: root, stdio: "ignore" });

// The package as users install it, with every package manager cache inside the temporary folder.
const app = join(home, "app");
const caches = { npm_config_cache: join(home, "npm-cache"), BUN_INSTALL_CACHE_DIR: join(home, "bun-cache"), DENO_DIR: join(home, "deno-dir") };
if (installed) {
  const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", home], { cwd: root, encoding: "utf8", env: { ...process.env, ...caches } });
  const tarball = join(home, JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0].filename);
  spawnSync("mkdir", ["-p", app]);
  spawnSync("sh", ["-c", `echo '{"private":true}' > package.json && npm install --no-audit --no-fund "$1"`, "install", tarball], { cwd: app, stdio: "ignore", env: { ...process.env, ...caches } });
}
const installedTargets = !installed ? [] : [
  { name: "npx acp-edge (installed)", command: "npx", args: ["--no", "--", "acp-edge", "agent", "stdio"], cwd: app },
  { name: "bunx --bun acp-edge (installed)", command: join(bin, "bunx"), args: ["--bun", "acp-edge", "agent", "stdio"], cwd: app },
  { name: "deno run -A npm:acp-edge (inst.)", command: join(bin, "deno"), args: ["run", "-A", "--quiet", "npm:acp-edge", "agent", "stdio"], cwd: app },
];

const nodeLine = (node) => `node${spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim().replace(/^v(\d+).*/, "$1")}`;
const targets = [
  ...installedTargets,
  { name: "floor: echo agent on node", command: process.execPath, args: [echo] },
  { name: "floor: bare SDK agent on node", command: process.execPath, args: [sdk] },
  { name: "node dist/cli.js", command: process.execPath, args: [cli, "agent", "stdio"] },
  ...otherNodes.flatMap((node) => [
    { name: `floor: echo agent on ${nodeLine(node)}`, command: node, args: [echo] },
    { name: `${nodeLine(node)} dist/cli.js`, command: node, args: [cli, "agent", "stdio"], floor: nodeLine(node) },
  ]),
  ...(builtSingle.status === 0 ? [{ name: "node acp-edge.mjs (single file)", command: process.execPath, args: [single, "agent", "stdio"] }] : []),
  { name: "floor: echo agent on bun", command: join(bin, "bun"), args: [echo] },
  { name: "floor: bare SDK agent on bun", command: join(bin, "bun"), args: [sdk] },
  { name: "bun dist/cli.js (bunx --bun)", command: join(bin, "bun"), args: [cli, "agent", "stdio"] },
  { name: "bun mod.ts (source)", command: join(bin, "bun"), args: [mod, "agent", "stdio"] },
  ...(builtSingle.status === 0 ? [{ name: "bun acp-edge.mjs (single file)", command: join(bin, "bun"), args: [single, "agent", "stdio"] }] : []),
  ...(built.status === 0 ? [{ name: "bun --compile binary", command: binary, args: ["agent", "stdio"] }] : []),
  { name: "floor: echo agent on deno", ...deno(echo) },
  { name: "floor: bare SDK agent on deno", ...deno(sdk) },
  { name: "deno run -A dist/cli.js", ...deno(cli, "agent", "stdio") },
  { name: "deno run -A mod.ts (source)", ...deno(mod, "agent", "stdio") },
  ...(builtSingle.status === 0 ? [{ name: "deno acp-edge.mjs (single file)", ...deno(single, "agent", "stdio") }] : []),
];

const request = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }) + "\n";

/** Resident memory of a process (Linux), in MiB, or undefined. */
function rssMiB(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024 || undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time the process has used so far, all its threads (Linux: /proc/PID/task/TID/schedstat, in
 * nanoseconds), in ms; or undefined. Waiting for a core on a busy machine does not count, so this
 * moves far less with the machine's load than the time to the answer does.
 */
function cpuMs(pid) {
  try {
    let total = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    return total / 1e6;
  } catch {
    return undefined;
  }
}

function once(target) {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(target.command, target.args, { cwd: target.cwd, env: benchEnv({ ...caches, ACP_EDGE_HOME: home }), stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) {
        const elapsed = performance.now() - started;
        const rss = rssMiB(child.pid);
        const cpu = cpuMs(child.pid);
        child.kill();
        if (!out.includes('"protocolVersion":1')) reject(new Error(`${target.name}: unexpected reply ${out}`));
        else resolvePromise({ elapsed, rss, cpu });
      }
    });
    child.on("error", reject);
    child.stdin.write(request);
  });
}

const mib = (bytes) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`);
const distBytes = readdirSync(join(root, "dist")).filter((f) => f.endsWith(".js")).reduce((sum, f) => sum + statSync(join(root, "dist", f)).size, 0);
const pack = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
const packed = pack.status === 0 ? JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0] : undefined;
console.log("sizes");
console.log(`${"dist/cli.js".padEnd(32)} ${mib(statSync(cli).size).padStart(10)}   (all of dist/*.js: ${mib(distBytes)}; needs node_modules)`);
if (packed) console.log(`${"npm tarball".padEnd(32)} ${mib(packed.size).padStart(10)}   (${packed.entryCount} files, ${mib(packed.unpackedSize)} unpacked, dependencies not included)`);
if (builtSingle.status === 0) console.log(`${"release/acp-edge.mjs".padEnd(32)} ${mib(statSync(single).size).padStart(10)}   (every dependency inside)`);
if (built.status === 0) console.log(`${"release/acp-edge".padEnd(32)} ${mib(statSync(binary).size).padStart(10)}   (bun runtime inside)`);
console.log("");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Interleaved (every target once per round), so load from elsewhere on the machine hits all rows alike.
for (const target of targets) await once(target); // warm the file-system cache
const times = targets.map(() => []);
const rss = targets.map(() => []);
const cpu = targets.map(() => []);
for (let i = 0; i < runs; i += 1) {
  for (const [k, target] of targets.entries()) {
    const { elapsed, rss: mib, cpu: ms } = await once(target);
    times[k].push(elapsed);
    if (mib !== undefined) rss[k].push(mib);
    if (ms !== undefined) cpu[k].push(ms);
  }
}
const floorOf = (runtime) => median(times[targets.findIndex((t) => t.name === `floor: echo agent on ${runtime}`)]);
const nodeFloor = floorOf("node");
/** The echo agent on the target's own runtime (the same Node line for --node targets). */
const ownFloor = (target) => floorOf(target.floor ?? /(node|bun|deno)/.exec(target.name)?.[1] ?? "node");
console.log(`cold start, spawn → initialize response, median of ${runs} interleaved runs (ratios: to the echo agent on node ${process.version}, and on the row's own runtime)`);
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}; node ${process.version}, bun ${spawnSync(join(bin, "bun"), ["--version"], { encoding: "utf8" }).stdout.trim()}, deno ${(spawnSync(join(bin, "deno"), ["--version"], { encoding: "utf8" }).stdout.split("\n")[0] ?? "").replace("deno ", "")}; load (1-min average) ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`);
for (const [k, target] of targets.entries()) {
  const m = median(times[k]);
  const memory = rss[k].length ? `${median(rss[k]).toFixed(1)} MiB RSS` : "RSS n/a";
  const own = target.name.startsWith("floor:") || target.cwd ? "" : `own ×${(m / ownFloor(target)).toFixed(2)}`;
  const work = cpu[k].length ? `${median(cpu[k]).toFixed(1)} ms CPU` : "CPU n/a";
  console.log(
    `${target.name.padEnd(32)} ${m.toFixed(1).padStart(7)} ms  ×${(m / nodeFloor).toFixed(2)}  ${own.padEnd(10)} ${memory.padStart(14)} ${work.padStart(13)}   (min ${Math.min(...times[k]).toFixed(1)}, max ${Math.max(...times[k]).toFixed(1)})`,
  );
}
rmSync(home, { recursive: true, force: true });
