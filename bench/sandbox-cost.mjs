// What the sandbox adds to each command: one agent process per mode runs a scripted turn of
// `--commands N` (default 20) `bash` calls of `true`, one after another, in `yolo` (never sandboxed)
// and in `auto` (each command under bubblewrap), turns interleaved; the turn's time divided by N is the
// time per command. Printed per runtime: both figures, the difference and the ratio (sandboxed /
// unsandboxed), medians of `--runs` turns (default 5) after one warm-up turn each. The faux model
// answers at once, so the time per command is the agent running it: spawn, wait, result.
// Then `sandbox.allowHosts`: a sandboxed turn per command as above with one allowed host (each command
// also starts the forwarder to the filtering proxy), and the first confined command of a fresh agent with
// and without allowed hosts (the first one also starts the session's proxy), medians of `--runs` agents.
// Last, what goes through: one command downloading `--megabytes N` (default 64) from a local server with
// curl, directly in `yolo` and through the forwarder, the carrier and the proxy in `auto` with the
// server's host allowed, as MB/s (medians of `--runs` turns).
// Usage: npm run build && node bench/sandbox-cost.mjs [--runs N] [--commands N] [--bun] [--deno] [--no-node]   (Linux with bubblewrap)
import { createServer } from "node:http";
import { join, resolve } from "node:path";
import { median, startAgent as startPerCallAgent } from "./per-call-cost.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const option = (name, fallback) => (flags.includes(name) ? Number(flags[flags.indexOf(name) + 1]) : fallback);
const runs = option("--runs", 5);
const commands = option("--commands", 20);
const megabytes = option("--megabytes", 64);
const targets = flags.includes("--no-node") ? [] : [{ name: "node", command: process.execPath, args: [join(root, "dist", "cli.js")] }];
if (flags.includes("--bun")) targets.push({ name: "bun", command: join(bin, "bun"), args: [join(root, "mod.ts")] });
if (flags.includes("--deno")) targets.push({ name: "deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts")] });

/** An agent in `mode` (and user `settings`) with a session whose script holds `turns` turns of `perTurn` commands. */
function startAgent(target, mode, settings = undefined, turns = runs + 1, perTurn = commands, command = "true") {
  return startPerCallAgent(target, { mode, settings, turns, commands: perTurn, command });
}

/** One allowed host (nothing connects to it: the cost is the proxy and the forwarder, not traffic). */
const HOSTS = { sandbox: { allowHosts: ["127.0.0.1:9"] } };

/** Medians per command, unsandboxed (`yolo`), sandboxed (`auto`) and sandboxed with allowed hosts, their turns interleaved after one warm-up each. */
async function measure(target) {
  const plain = await startAgent(target, "yolo");
  const confined = await startAgent(target, "auto");
  const hosts = await startAgent(target, "auto", HOSTS);
  try {
    await plain.turn();
    await confined.turn();
    await hosts.turn();
    const times = { plain: [], confined: [], hosts: [] };
    for (let i = 0; i < runs; i++) {
      times.plain.push(await plain.turn());
      times.confined.push(await confined.turn());
      times.hosts.push(await hosts.turn());
    }
    return { plain: median(times.plain), confined: median(times.confined), hosts: median(times.hosts) };
  } finally {
    await plain.close();
    await confined.close();
    await hosts.close();
  }
}

/** The first confined command of a fresh agent, without and with allowed hosts (medians of `runs` agents each, interleaved). */
async function measureFirst(target) {
  const times = { confined: [], hosts: [] };
  for (let i = 0; i < runs; i++) {
    for (const [key, settings] of [["confined", undefined], ["hosts", HOSTS]]) {
      const agent = await startAgent(target, "auto", settings, 1, 1);
      try {
        times[key].push(await agent.turn());
      } finally {
        await agent.close();
      }
    }
  }
  return { confined: median(times.confined), hosts: median(times.hosts) };
}

/** A local server that sends `megabytes` MiB to every request, in 1 MiB writes that wait for the pipe. */
async function bulkServer() {
  const block = Buffer.alloc(1024 * 1024, 120);
  const server = createServer(async (request, response) => {
    response.writeHead(200, { "content-length": String(megabytes * block.length), connection: "close" });
    for (let i = 0; i < megabytes; i++) if (!response.write(block)) await new Promise((resolve) => response.once("drain", resolve));
    response.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: server.address().port };
}

/** MB/s of one download: directly (`yolo`) and through the sandbox's proxy (`auto` with the host allowed), turns interleaved. */
async function measureTransfer(target) {
  const { server, port } = await bulkServer();
  const command = `curl -sS -o /dev/null http://127.0.0.1:${port}/`;
  const direct = await startAgent(target, "yolo", undefined, runs + 1, 1, command);
  const proxied = await startAgent(target, "auto", { sandbox: { allowHosts: [`127.0.0.1:${port}`] } }, runs + 1, 1, command);
  try {
    await direct.turn();
    await proxied.turn();
    const times = { direct: [], proxied: [] };
    for (let i = 0; i < runs; i++) {
      times.direct.push(await direct.turn());
      times.proxied.push(await proxied.turn());
    }
    const rate = (ms) => (megabytes * 1.048576) / (ms / 1000);
    return { direct: rate(median(times.direct)), proxied: rate(median(times.proxied)) };
  } finally {
    await direct.close();
    await proxied.close();
    server.close();
  }
}

for (const target of targets) {
  const { plain, confined, hosts } = await measure(target);
  const first = await measureFirst(target);
  console.log(
    `${target.name}: per command ${plain.toFixed(2)} ms unsandboxed, ${confined.toFixed(2)} ms sandboxed: +${(confined - plain).toFixed(2)} ms, ratio ${(confined / plain).toFixed(2)} (median of ${runs} turns of ${commands} commands)`,
  );
  console.log(
    `${target.name}: allowHosts: per command ${hosts.toFixed(2)} ms sandboxed with allowed hosts: +${(hosts - confined).toFixed(2)} ms over sandboxed; ` +
      `first confined command ${first.confined.toFixed(2)} ms, with allowed hosts ${first.hosts.toFixed(2)} ms: +${(first.hosts - first.confined).toFixed(2)} ms (median of ${runs} agents)`,
  );
  const transfer = await measureTransfer(target);
  console.log(
    `${target.name}: a ${megabytes} MiB download with curl: ${transfer.direct.toFixed(0)} MB/s unsandboxed, ${transfer.proxied.toFixed(0)} MB/s through the sandbox's proxy (median of ${runs} turns, command start included)`,
  );
}
