// What language-server diagnostics cost an edit: two agents per runtime in `yolo`, one with
// `lsp: false` (the edit alone) and one with diagnostics on, in a TypeScript project with
// `typescript` and `typescript-language-server` in its node_modules (links to this repository's).
// Each prompt is one `write` of src/main.ts (alternately with and without a type error); the prompt's
// time is the edit's. Printed per runtime: the first edit (which starts the server) and the median
// of `--runs` later edits (default 10), with diagnostics and without, and their ratios.
// Usage: npm run build && node bench/lsp-diagnostics.mjs [--runs N] [--bun] [--deno]
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnv } from "./clean-env.mjs";
import { connectNdjson } from "./ndjson-client.mjs";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const bin = join(root, "node_modules", ".bin");
const flags = process.argv.slice(2);
const option = (name, fallback) => (flags.includes(name) ? Number(flags[flags.indexOf(name) + 1]) : fallback);
const runs = option("--runs", 10);
const targets = [{ name: "node", command: process.execPath, args: [join(root, "dist", "cli.js")] }];
if (flags.includes("--bun")) targets.push({ name: "bun", command: join(bin, "bun"), args: [join(root, "mod.ts")] });
if (flags.includes("--deno")) targets.push({ name: "deno", command: join(bin, "deno"), args: ["run", "-A", "--quiet", join(root, "mod.ts")] });

const BROKEN = 'import { add } from "./lib";\nexport const total: string = add(1, 2);\n';
const FIXED = 'import { add } from "./lib";\nexport const total: number = add(1, 2);\n';
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The project: strict tsconfig, a library module, the two packages linked into node_modules. */
function makeProject(dir) {
  const project = join(dir, "project");
  mkdirSync(join(project, "src"), { recursive: true });
  mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "bench", private: true, type: "module" }));
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler" }, include: ["src"] }));
  writeFileSync(join(project, "src", "lib.ts"), "export function add(a: number, b: number): number {\n  return a + b;\n}\n");
  symlinkSync(join(root, "node_modules", "typescript"), join(project, "node_modules", "typescript"));
  symlinkSync(join(root, "node_modules", "typescript-language-server"), join(project, "node_modules", "typescript-language-server"));
  symlinkSync(join("..", "typescript-language-server", "lib", "cli.mjs"), join(project, "node_modules", ".bin", "typescript-language-server"));
  return project;
}

/** An agent whose script holds `runs + 1` one-write prompts; `lsp` false turns diagnostics off. */
async function startAgent(target, lsp) {
  const dir = mkdtempSync(join(tmpdir(), "acp-edge-bench-lsp-"));
  const project = makeProject(dir);
  const home = join(dir, "home");
  mkdirSync(home);
  writeFileSync(join(home, "settings.json"), JSON.stringify({ lsp: lsp ? { startWaitSeconds: 120, waitSeconds: 60 } : false }));
  const script = join(dir, "script.json");
  const turns = Array.from({ length: runs + 1 }, (_, i) => [
    { toolCalls: [{ id: `w${i}`, name: "write", input: { path: "src/main.ts", content: i % 2 === 0 ? BROKEN : FIXED } }] },
    { text: "done" },
  ]).flat();
  writeFileSync(script, JSON.stringify(turns));
  const agent = connectNdjson(
    { ...target, args: [...target.args, "agent", "stdio", "--model", "faux/script", "--approval-mode", "yolo", "--no-session"] },
    { cwd: project, env: benchEnv({ ACP_EDGE_HOME: home, ACP_EDGE_FAUX_SCRIPT: script }) },
  );
  await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }).answered;
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] }).answered;
  return {
    /** Milliseconds of one prompt (one write). */
    async edit() {
      const { sent, answered } = agent.request("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text: "go" }] });
      const { at } = await answered;
      return at - sent;
    },
    async close() {
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function measure(target) {
  const plain = await startAgent(target, false);
  const checked = await startAgent(target, true);
  try {
    const first = { plain: await plain.edit(), checked: await checked.edit() };
    const later = { plain: [], checked: [] };
    for (let i = 0; i < runs; i++) {
      later.plain.push(await plain.edit());
      later.checked.push(await checked.edit());
    }
    return { first, plain: median(later.plain), checked: median(later.checked) };
  } finally {
    await plain.close();
    await checked.close();
  }
}

for (const target of targets) {
  const { first, plain, checked } = await measure(target);
  console.log(
    `${target.name}: first edit (server start + first diagnostics) ${first.checked.toFixed(0)} ms vs ${first.plain.toFixed(1)} ms alone, ratio ${(first.checked / first.plain).toFixed(1)}; ` +
      `later edits ${checked.toFixed(1)} ms vs ${plain.toFixed(1)} ms alone, ratio ${(checked / plain).toFixed(1)} (median of ${runs})`,
  );
}
