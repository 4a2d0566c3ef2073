/**
 * The ACP Registry's checks on what would be published: the validator
 * (scripts/validate-registry.mjs) on the npx form, from the packed tarball
 * as npm-package.test.ts packs it, and on this platform's release archive
 * built by scripts/release-archives.mjs: each launched with a fresh empty
 * HOME and a minimal environment, answering `initialize` with an auth method,
 * nothing but JSON-RPC on stdout.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, ROOT, type Sandbox } from "../helpers/agent-process.ts";

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox();
});
afterAll(() => sandbox.cleanup());

function validate(args: string[]): { code: number | null; output: string } {
  const result = spawnSync(process.execPath.endsWith("bun") ? "node" : process.execPath, [join(ROOT, "scripts", "validate-registry.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 300_000,
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

test("the npx form, from the packed tarball, passes the registry's checks", () => {
  const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", sandbox.root], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, npm_config_cache: join(sandbox.root, "npm-cache") },
  });
  expect(pack.status).toBe(0);
  const tarball = join(sandbox.root, JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[")))[0].filename);
  const result = validate(["--npx", tarball]);
  expect(result).toEqual({ code: 0, output: expect.stringContaining("ok   npx") });
  expect(result.output).toContain("ok   manifest");
  expect(result.output).toContain("ok   icon");
}, 300_000);

test.skipIf(process.platform !== "linux" || process.arch !== "x64")("the linux-x64 release archive passes the registry's checks", () => {
  const out = join(sandbox.root, "archives");
  const built = spawnSync(process.execPath.endsWith("bun") ? "node" : process.execPath, [join(ROOT, "scripts", "release-archives.mjs"), "--base-url", "https://downloads.example/acp-edge/releases/v0", "--targets", "linux-x64", "--out", out], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 600_000,
  });
  expect({ code: built.status, stderr: built.status === 0 ? "" : built.stderr }).toEqual({ code: 0, stderr: "" });
  const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
  const archive = join(out, `acp-edge-${version}-linux-x64.tar.gz`);
  expect(existsSync(archive)).toBe(true);
  expect(built.stdout).toMatch(/linux-x64\.tar\.gz\s+[\d.]+ MiB\s+sha256 [0-9a-f]{64}/);
  const result = validate(["--binary", archive]);
  expect(result).toEqual({ code: 0, output: expect.stringContaining("ok   binary linux-x86_64") });
}, 600_000);
