import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildSync } from "esbuild";
import { spawnProcess } from "../../src/runtime/process/spawn-program.ts";
import { spawnShell, type ShellProcess } from "../../src/runtime/process/spawn-shell.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { processGone } from "../helpers/processes.ts";

const ROOT = resolve(import.meta.dir, "../..");
const BIN = join(ROOT, "node_modules/.bin");
let dir: string;
const leftovers: number[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(realpathSync(tmpdir()), "acp-tree-"));
});
afterAll(() => {
  for (const pid of leftovers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Reads `count` lines of pids the command prints. */
async function printedPids(output: AsyncIterable<Uint8Array>, count: number): Promise<number[]> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of output) {
    text += decoder.decode(chunk, { stream: true });
    if (text.split("\n").length > count) break;
  }
  const pids = text.trim().split("\n").slice(0, count).map(Number);
  leftovers.push(...pids);
  return pids;
}

async function shellPrinting(command: string, count: number): Promise<{ shell: ShellProcess; pids: number[] }> {
  const shell = await spawnShell({ command, cwd: dir });
  return { shell, pids: await printedPids(shell.output, count) };
}

const gone = (pids: number[]) => pids.map((pid) => ({ pid, gone: processGone(pid) }));
const allGone = (pids: number[]) => pids.map((pid) => ({ pid, gone: true }));

describe("process trees", () => {
  test("terminate reaches children that left the group: setsid, nohup, and a setsid child with a cleared environment whose parent lives", async () => {
    const { shell, pids } = await shellPrinting(
      "setsid sleep 30 & echo $!; nohup sleep 30 & echo $!; (env -i setsid sleep 30 & echo $!; wait) & wait",
      3,
    );
    expect(gone(pids)).toEqual(pids.map((pid) => ({ pid, gone: false })));
    expect(shell.treeAlive()).toBe(true);
    await shell.terminate(1000);
    expect(gone(pids)).toEqual(allGone(pids));
    expect(shell.treeAlive()).toBe(false);
  });

  test("after the shell exited, the tree is what it left behind, and terminate ends it", async () => {
    const { shell, pids } = await shellPrinting("setsid sleep 30 & echo $!; nohup sleep 30 & echo $!", 2);
    await shell.exited;
    expect(shell.treeAlive()).toBe(true);
    await shell.terminate(1000);
    expect(gone(pids)).toEqual(allGone(pids));
  });

  test("a program's terminate reaches its setsid children too", async () => {
    const program = await spawnProcess({ command: "/bin/sh", args: ["-c", "setsid sleep 30 & echo $!; exec sleep 30"], cwd: dir });
    const pids = [program.pid, ...(await printedPids(program.stdout, 1))];
    await program.terminate(1000);
    expect(gone(pids)).toEqual(allGone(pids));
  });
});

describe("exiting ends every tree still running", () => {
  // SIGKILL is sent before the exit; its delivery may take a moment.
  const expectExitKills = async (out: { stdout: string; stderr: string }) => {
    expect(out.stderr).toBe("");
    const { pids } = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "{}") as { pids: number[] };
    leftovers.push(...pids);
    expect(pids).toHaveLength(3);
    await waitFor(() => pids.every(processGone), 2000, "the tree to end").catch(() => undefined);
    expect(gone(pids)).toEqual(allGone(pids));
  };
  const helper = join(ROOT, "tests/helpers/exit-with-running-tree.ts");

  test("node (bundled)", async () => {
    const outfile = join(dir, "exit-with-running-tree.mjs");
    buildSync({ entryPoints: [helper], bundle: true, platform: "node", format: "esm", outfile, logLevel: "warning" });
    await expectExitKills(spawnSync("node", [outfile, dir], { encoding: "utf8", timeout: 10_000 }));
  });

  test("bun", async () => {
    await expectExitKills(spawnSync(join(BIN, "bun"), [helper, dir], { encoding: "utf8", timeout: 10_000 }));
  });

  test("deno", async () => {
    await expectExitKills(spawnSync(join(BIN, "deno"), ["run", "-A", "--quiet", helper, dir], { encoding: "utf8", timeout: 20_000 }));
  });
});
