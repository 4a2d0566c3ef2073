// The compiled binary (release/acp-edge): Bun's --compile over the code-split Node build (dist/, so
// the same deferred SDK schemas), kept split so what `initialize` does not need (the HTTP server,
// child processes, the model stack) loads only when used; bytecode laid out in the order one start-up
// of the binary runs it; the JIT reluctant until the agent is interactive (src/runtime/host/jit-policy.ts).
// A project's .env and bunfig.toml are never loaded by the binary.
// Usage: node scripts/build-binary.mjs   (this machine's binary; scripts/release-archives.mjs imports
// the same steps to build every platform's)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "dist", "cli.js");

/** Imports a TypeScript module of src/ (Node runs this script, and Node 20 cannot load .ts itself). */
async function importSource(path) {
  const { outputFiles } = await build({ entryPoints: [path], bundle: true, write: false, platform: "node", format: "esm", logLevel: "error" });
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].contents).toString("base64")}`);
}

// The same scale the entry point sets on Bun, applied by the executable before any of its code runs.
const { START_JIT_POLICY: startJitPolicy } = await importSource(join(root, "src", "runtime", "host", "jit-policy.ts"));
if (!Number.isInteger(startJitPolicy) || startJitPolicy < 1) {
  throw new Error(`build-binary: START_JIT_POLICY of src/runtime/host/jit-policy.ts is ${startJitPolicy}, not a positive whole number`);
}
const bun = existsSync(join(root, "node_modules", ".bin", "bun")) ? join(root, "node_modules", ".bin", "bun") : "bun";

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal})`);
}

/** Builds dist/ (the code every binary is compiled from). */
export function buildDist() {
  run(process.execPath, [join(root, "scripts", "build.mjs")]);
}

/**
 * Compiles dist/cli.js into `outfile`; `target` is Bun's (`bun-linux-arm64`…; this machine's when
 * omitted; other platforms' runtimes are downloaded by bun), `order` a recorded start-up order.
 */
export function compileBinary({ outfile, target, order }) {
  run(bun, [
    "build", "--compile", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", "--minify", "--splitting", "--bytecode", "--format=esm",
    `--compile-jit-policy=${startJitPolicy}`,
    ...(target ? [`--target=${target}`] : []),
    ...(order ? [`--bytecode-order=${order}`] : []),
    source, "--outfile", outfile,
  ]);
}

/** Starts `binary` once, answers `initialize`, and returns the order file it wrote into `work` (or undefined). */
export async function recordStartOrder(binary, work) {
  const order = join(work, "order.txt");
  const child = spawn(binary, ["agent", "stdio"], {
    cwd: work,
    env: { ...process.env, ACP_EDGE_HOME: join(work, "home"), BUN_BYTECODE_ORDER_OUT: order },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const exited = new Promise((done) => child.on("exit", done));
  child.on("error", () => undefined);
  const answered = new Promise((done) => child.stdout.on("data", (chunk) => chunk.includes('"id":1') && done()));
  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n');
  await Promise.race([answered, new Promise((done) => setTimeout(done, 10_000).unref())]);
  child.stdin.end();
  // A binary that does not exit on end of input is a broken build: stop it rather than wait forever.
  const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(killer);
  return existsSync(order) && statSync(order).size > 0 ? order : undefined;
}

/** This machine's binary at `outfile`, its bytecode in recorded start-up order; resolves with the order file (in `work`). */
export async function buildHostBinary(outfile, work) {
  compileBinary({ outfile });
  const order = await recordStartOrder(outfile, work);
  if (order) compileBinary({ outfile, order });
  else console.warn("build-binary: no start-up order was recorded; the binary keeps the default bytecode layout");
  return order;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  buildDist();
  const work = mkdtempSync(join(tmpdir(), "acp-edge-binary-"));
  try {
    await buildHostBinary(join(root, "release", "acp-edge"), work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
