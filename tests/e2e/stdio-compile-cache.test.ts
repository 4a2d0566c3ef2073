/**
 * Node's compile cache as `dist/cli.js` turns it on (src/runtime/host/compile-cache.ts):
 * on Node 22+, a first start fills `$XDG_CACHE_HOME/acp-edge/compile-cache`
 * and the next start uses what it holds. Node says which cached code it
 * accepted when `NODE_DEBUG_NATIVE=COMPILE_CACHE` is set (its documented
 * switch for this). On Node 20, which has no compile cache, nothing is
 * written. Runs with the node runtime of the test run (ACP_EDGE_TEST_NODE).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, NODE, RUNTIMES, runAgentCommand, type Sandbox } from "../helpers/agent-process.ts";

const INITIALIZE = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
const version = RUNTIMES.includes("node") ? spawnSync(NODE, ["--version"], { encoding: "utf8" }).stdout.trim() : "";
const major = Number(/^v(\d+)/.exec(version)?.[1] ?? 0);

let sandbox: Sandbox | undefined;
afterEach(() => sandbox?.cleanup());

/** One start of the agent that answers `initialize`; Node's compile-cache log from stderr. */
async function start(cache: string): Promise<string[]> {
  const result = await runAgentCommand("node", ["agent", "stdio"], {
    input: INITIALIZE,
    env: { ACP_EDGE_HOME: sandbox!.home, XDG_CACHE_HOME: cache, NODE_DEBUG_NATIVE: "COMPILE_CACHE", NODE_COMPILE_CACHE: undefined },
  });
  expect(result.stdout).toContain('"protocolVersion":1');
  return result.stderr.split("\n").filter((line) => line.startsWith("[compile cache]"));
}

/** The files of the cache folder for this Node (one per compiled module). */
function cached(cache: string): string[] {
  const root = join(cache, "acp-edge", "compile-cache");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((folder) => readdirSync(join(root, folder)).map((file) => join(folder, file)));
}

describe.if(RUNTIMES.includes("node"))(`the compile cache on Node ${version}`, () => {
  if (major >= 22) {
    test("a first start fills the cache; the next one uses it", async () => {
      sandbox = makeSandbox();
      const cache = join(sandbox.root, "cache");
      await start(cache);
      const files = cached(cache);
      // The start-up modules, one file each: more than a handful.
      expect(files.length).toBeGreaterThan(5);
      expect(files.every((file) => file.startsWith(version))).toBe(true);

      const second = await start(cache);
      const accepted = second.filter((line) => / was accepted/.test(line));
      expect(accepted.length).toBeGreaterThanOrEqual(files.length - 1);
      expect(second.filter((line) => / was rejected|mismatch/.test(line))).toEqual([]);
      expect(accepted.some((line) => line.includes(join("dist", "")))).toBe(true);
    });
  } else {
    test("Node 20 has no compile cache: nothing is written and the agent starts as usual", async () => {
      sandbox = makeSandbox();
      const cache = join(sandbox.root, "cache");
      expect(await start(cache)).toEqual([]);
      expect(cached(cache)).toEqual([]);
    });
  }
});
