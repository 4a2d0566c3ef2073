/**
 * The npm package as users get it: `npm pack`, installed from the tarball into
 * an empty project (dependencies from the registry, caches inside the temporary
 * folder), then run the three ways editors launch it: `npx`, `bunx --bun` and
 * `deno run -A npm:acp-edge`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, ROOT, RUNTIMES, type Launcher, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { checkServeTurn, checkStdioTurn, checkVersion } from "../helpers/artifact-checks.ts";
import { checkLoginRelaunch } from "../helpers/login-relaunch.ts";

const BIN = join(ROOT, "node_modules", ".bin");
let sandbox: Sandbox;
let app: string;
let packed: { filename: string; size: number; unpackedSize: number; files: Array<{ path: string; size: number }> };

/** Every cache the package managers use lives in the temporary folder, so nothing installed earlier can hide a missing step. */
function caches(): Record<string, string> {
  return {
    npm_config_cache: join(sandbox.root, "npm-cache"),
    BUN_INSTALL_CACHE_DIR: join(sandbox.root, "bun-cache"),
    DENO_DIR: join(sandbox.root, "deno-dir"),
  };
}

beforeAll(() => {
  sandbox = makeSandbox();
  const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", sandbox.root], { cwd: ROOT, encoding: "utf8", env: { ...process.env, ...caches() } });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0];
  app = join(sandbox.root, "app");
  sandbox.write("app/package.json", JSON.stringify({ name: "acp-edge-install-check", private: true }));
  const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", join(sandbox.root, packed.filename)], {
    cwd: app,
    encoding: "utf8",
    env: { ...process.env, ...caches() },
  });
  if (install.status !== 0) throw new Error(`npm install of the tarball failed: ${install.stderr}`);
}, 180_000);

afterAll(() => sandbox.cleanup());

test("the tarball holds what runs and what types resolve to, nothing else", () => {
  const paths = packed.files.map((f) => f.path);
  expect(paths).toContain("dist/cli.js");
  expect(paths).toContain("dist/mod.js");
  expect(paths).toContain("mod.ts");
  expect(paths).toContain("package.json");
  expect(paths.filter((p) => p.endsWith(".map") || p.startsWith("release/") || p.startsWith("tests/") || p.startsWith("bench/"))).toEqual([]);
  expect(paths.filter((p) => !/^(dist\/[^/]+\.js|src\/.+\.ts|mod\.ts|package\.json|README\.md|LICENSE)$/.test(p))).toEqual([]);
  // The packed size guards against a dependency or an asset slipping in whole. It was 1 MiB until the tarball
  // carried four more provider kinds, the model catalogue, hooks, web search, the sandbox's proxy and the
  // language-server client (their sources and their bundled chunks: about 180 KiB packed); the clouds' SDKs
  // and credential libraries stay out of dist (installed as dependencies, loaded when a session uses one).
  expect(packed.size).toBeLessThan(1.25 * 1024 * 1024);
});

test("the installed package exposes the acp-edge command", () => {
  expect(existsSync(join(app, "node_modules", ".bin", "acp-edge"))).toBe(true);
});

function launcher(runtime: RuntimeName): Launcher {
  switch (runtime) {
    case "node":
      return { command: "npx", args: ["--no", "--", "acp-edge"], cwd: app };
    case "bun":
      return { command: join(BIN, "bunx"), args: ["--bun", "acp-edge"], cwd: app };
    case "deno":
      return { command: join(BIN, "deno"), args: ["run", "-A", "--quiet", "npm:acp-edge"], cwd: app };
  }
}

const how: Record<RuntimeName, string> = { node: "npx acp-edge", bun: "bunx --bun acp-edge", deno: "deno run -A npm:acp-edge" };

describe.each(RUNTIMES)("installed package on %s", (runtime) => {
  test(`${how[runtime]} --version`, async () => {
    await checkVersion(launcher(runtime), sandbox);
  });

  test(`${how[runtime]} agent stdio: initialize and one turn`, async () => {
    await checkStdioTurn(launcher(runtime), sandbox, `installed package on ${runtime}`, caches());
  });

  test(`${how[runtime]}: both terminal-login command lines the agent gives a client run its login`, async () => {
    await checkLoginRelaunch(launcher(runtime), sandbox, caches());
  });

  // npm exec does not pass on the agent's exit status after a signal, so the SIGTERM check on node
  // runs the installed bin directly (what `npx acp-edge` resolves to, and what a service would run).
  test(`${runtime === "node" ? "node_modules/.bin/acp-edge" : how[runtime]} agent serve: a WebSocket turn and a clean SIGTERM`, async () => {
    const serve = runtime === "node" ? { command: join(app, "node_modules", ".bin", "acp-edge"), args: [], cwd: app } : launcher(runtime);
    await checkServeTurn(serve, sandbox, `installed package serving on ${runtime}`, { env: caches() });
  });
});
