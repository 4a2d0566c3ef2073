// Cold start: time from spawn to the `initialize` response, per runtime,
// next to a bare no-dependency echo agent (the floor). Prints medians.
// Usage: node bench/cold-start.mjs [runs]   (after `npm run build`)
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const runs = Number(process.argv[2] ?? 15);
const home = mkdtempSync(join(tmpdir(), "acp-edge-bench-"));

const targets = [
  { name: "echo agent floor (node)", command: process.execPath, args: [join(root, "bench", "echo-agent.mjs")] },
  { name: "node dist/cli.js", command: process.execPath, args: [join(root, "dist", "cli.js"), "agent", "stdio"] },
  { name: "bun mod.ts", command: join(bin, "bun"), args: [join(root, "mod.ts"), "agent", "stdio"] },
  { name: "echo agent floor (bun)", command: join(bin, "bun"), args: [join(root, "bench", "echo-agent.mjs")] },
  { name: "deno run -A mod.ts", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts"), "agent", "stdio"] },
  { name: "echo agent floor (deno)", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "bench", "echo-agent.mjs")] },
];

const request = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }) + "\n";

function once(target) {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(target.command, target.args, { env: { ...process.env, ACP_EDGE_HOME: home }, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) {
        const elapsed = performance.now() - started;
        child.kill();
        if (!out.includes('"protocolVersion":1')) reject(new Error(`${target.name}: unexpected reply ${out}`));
        else resolvePromise(elapsed);
      }
    });
    child.on("error", reject);
    child.stdin.write(request);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`cold start, spawn → initialize response, median of ${runs} runs`);
for (const target of targets) {
  await once(target); // warm the file-system cache
  const times = [];
  for (let i = 0; i < runs; i += 1) times.push(await once(target));
  console.log(`${target.name.padEnd(28)} ${median(times).toFixed(1).padStart(7)} ms   (min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)})`);
}
rmSync(home, { recursive: true, force: true });
