/**
 * `npm run build:binary` → release/acp-edge (Bun's --compile): `--version`,
 * `agent stdio` and `agent serve` from the binary alone, outside the project.
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, ROOT, type Launcher, type Sandbox } from "../helpers/agent-process.ts";
import { checkServeTurn, checkStdioTurn, checkVersion } from "../helpers/artifact-checks.ts";

let sandbox: Sandbox;
let binary: Launcher;

beforeAll(() => {
  const built = spawnSync("npm", ["run", "--silent", "build:binary"], { cwd: ROOT, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`npm run build:binary failed: ${built.stderr}`);
  sandbox = makeSandbox();
  const copy = join(sandbox.root, "acp-edge");
  copyFileSync(join(ROOT, "release", "acp-edge"), copy);
  chmodSync(copy, 0o755);
  binary = { command: copy, args: [], cwd: sandbox.project };
}, 120_000);

afterAll(() => sandbox.cleanup());

describe("release/acp-edge (compiled with bun)", () => {
  test("--version", async () => {
    await checkVersion(binary, sandbox);
  });

  test("agent stdio: initialize and one turn", async () => {
    await checkStdioTurn(binary, sandbox, "the binary answers");
  });

  test("agent serve: /healthz, a WebSocket turn, SIGTERM exits 0, session kept", async () => {
    await checkServeTurn(binary, sandbox, "the binary serves");
  });
});
