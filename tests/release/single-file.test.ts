/**
 * `npm run build:single` → release/acp-edge.mjs, copied alone into an empty
 * folder, runs `--version`, `agent stdio`, `agent serve` and `demo` on each runtime.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { makeSandbox, ROOT, RUNTIMES, type Launcher, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { checkDemo, checkServeTurn, checkStdioTurn, checkVersion } from "../helpers/artifact-checks.ts";
import { checkFetchHtml } from "../helpers/artifact-fetch.ts";
import { checkLoginRelaunch } from "../helpers/login-relaunch.ts";

const BIN = join(ROOT, "node_modules", ".bin");
let sandbox: Sandbox;
let folder: string;
let file: string;

beforeAll(() => {
  const built = spawnSync("npm", ["run", "--silent", "build:single"], { cwd: ROOT, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`npm run build:single failed: ${built.stderr}`);
  sandbox = makeSandbox();
  folder = join(sandbox.root, "alone");
  sandbox.write("alone/.keep", "");
  file = join(folder, "acp-edge.mjs");
  copyFileSync(join(ROOT, "release", "acp-edge.mjs"), file);
});

afterAll(() => sandbox.cleanup());

function launcher(runtime: RuntimeName): Launcher {
  switch (runtime) {
    case "node":
      return { command: "node", args: [file], cwd: folder };
    case "bun":
      return { command: join(BIN, "bun"), args: [file], cwd: folder };
    case "deno":
      return { command: join(BIN, "deno"), args: ["run", "-A", "--quiet", file], cwd: folder };
  }
}

test("the single file's module imports name only the runtime's built-ins", () => {
  const source = readFileSync(join(ROOT, "release", "acp-edge.mjs"), "utf8");
  // The scan is textual, so it also meets strings such as `" from ","` in bundled code; keep
  // only what could name a module (a package, a path or a scheme), which is what must be a built-in.
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!).filter((s) => /^[\w@.:/-]+$/.test(s));
  expect(specifiers.length).toBeGreaterThan(0);
  expect(specifiers.filter((s) => !s.startsWith("node:") && !builtinModules.includes(s))).toEqual([]);
  expect(statSync(join(ROOT, "release", "acp-edge.mjs")).size).toBeLessThan(4 * 1024 * 1024);
});

describe.each(RUNTIMES)("release/acp-edge.mjs alone in a folder on %s", (runtime) => {
  test("--version", async () => {
    await checkVersion(launcher(runtime), sandbox);
  });

  test("agent stdio: initialize and one turn", async () => {
    await checkStdioTurn(launcher(runtime), sandbox, `single file on ${runtime}`);
  });

  test("the fetch tool converts an HTML page on its worker thread", async () => {
    await checkFetchHtml(launcher(runtime), sandbox);
  });

  test("both terminal-login command lines the agent gives a client run its login", async () => {
    await checkLoginRelaunch(launcher(runtime), sandbox);
  });

  test("agent serve: /healthz, a WebSocket turn, SIGTERM exits 0, session kept", async () => {
    await checkServeTurn(launcher(runtime), sandbox, `single file serving on ${runtime}`);
  });

  test("demo reads a file of the folder", async () => {
    await checkDemo(launcher(runtime), sandbox, folder);
    expect(readdirSync(folder).sort()).toEqual([".keep", "acp-edge.mjs"]);
  });
});
