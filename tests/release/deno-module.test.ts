/**
 * The Deno module: type checking and `deno publish --dry-run` pass on mod.ts, the
 * deno.json tasks run it with the documented permission flags (an ACP turn over
 * stdio and one over WebSocket), and `deno compile` gets past type checking and
 * module graph building (its base runtime download may be impossible offline).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, ROOT, type Launcher, type Sandbox } from "../helpers/agent-process.ts";
import { checkServeTurn, checkStdioTurn, checkVersion } from "../helpers/artifact-checks.ts";

const DENO = join(ROOT, "node_modules", ".bin", "deno");
const denoJson = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as { tasks: Record<string, string> };

let sandbox: Sandbox;
beforeAll(() => void (sandbox = makeSandbox()));
afterAll(() => sandbox.cleanup());

function deno(args: string[]) {
  return spawnSync(DENO, args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
}

/** A deno.json task's command line, split into words, with its `deno` replaced by this project's. */
function taskLauncher(name: string): Launcher {
  const words = denoJson.tasks[name]!.split(/\s+/);
  expect(words[0]).toBe("deno");
  return { command: DENO, args: [...words.slice(1, -2).filter((w) => w !== "mod.ts"), "--quiet", join(ROOT, "mod.ts")], cwd: sandbox.project };
}

test("deno publish --dry-run passes", () => {
  const [command, ...args] = denoJson.tasks["publish:check"]!.split(/\s+/);
  expect(command).toBe("deno");
  const result = deno(args);
  expect({ status: result.status, stderr: result.status === 0 ? "" : result.stderr }).toEqual({ status: 0, stderr: "" });
}, 120_000);

describe("deno.json tasks, with their permission flags", () => {
  test("the tasks exist and grant no more than they list", () => {
    for (const name of ["stdio", "serve", "demo", "compile"]) expect(denoJson.tasks[name]).toMatch(/^deno (run|compile) /);
    for (const command of Object.values(denoJson.tasks)) expect(command).not.toMatch(/(^|\s)(-A|--allow-all)(\s|$)/);
  });

  test("stdio: --version and one turn", async () => {
    const stdio = taskLauncher("stdio");
    await checkVersion(stdio, sandbox);
    await checkStdioTurn(stdio, sandbox, "deno task stdio answers");
  });

  test("serve: a WebSocket turn and a clean SIGTERM", async () => {
    await checkServeTurn(taskLauncher("serve"), sandbox, "deno task serve answers");
  });
});

// `deno compile` type-checks mod.ts first (what `deno check mod.ts` does), then embeds the graph.
test("deno compile type-checks and builds the module graph; only the runtime download may fail offline", () => {
  const output = join(sandbox.root, "acp-edge-deno");
  const words = denoJson.tasks.compile!.split(/\s+/).slice(1);
  const args = words.map((w, i) => (words[i - 1] === "--output" ? output : w));
  const result = deno(args);
  expect(result.stderr).toMatch(/^Check .*mod\.ts$/m);
  if (result.status === 0) {
    expect(existsSync(output)).toBe(true);
    expect(spawnSync(output, ["--version"], { encoding: "utf8" }).stdout.trim()).toMatch(/^acp-edge \d/);
  } else {
    expect(result.stderr).not.toMatch(/TS\d{4}|Type checking failed|Module not found|Relative import path/);
    expect(result.stderr).toMatch(/denort|download/i);
  }
}, 180_000);
