/**
 * acpx, an independent headless ACP client, driving the agent on each
 * runtime: the same write is applied with --approve-all and refused with
 * --deny-all (acpx advertises fs and terminal, so the write goes through it).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentCommand, cleanEnv, makeSandbox, ROOT, RUNTIMES } from "../helpers/agent-process.ts";

const ACPX = join(ROOT, "node_modules", "acpx", "dist", "cli.js");

function runAcpx(runtime: (typeof RUNTIMES)[number], policy: "--approve-all" | "--deny-all") {
  const sandbox = makeSandbox();
  const script = sandbox.write(
    "script.json",
    JSON.stringify([
      { toolCalls: [{ id: "w1", name: "write", input: { path: "from-acpx.txt", content: "written through acpx\n" } }] },
      { text: "finished the write" },
    ]),
  );
  const { command, args } = agentCommand(runtime, ["agent", "stdio", "--model", "faux/script"]);
  const result = spawnSync(process.execPath.endsWith("bun") ? "node" : process.execPath, [ACPX, "--cwd", sandbox.project, "--format", "json", policy, "--agent", [command, ...args].join(" "), "exec", "write the file"], {
    env: cleanEnv({ ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script, HOME: sandbox.root }),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { sandbox, result, file: join(sandbox.project, "from-acpx.txt") };
}

describe.each(RUNTIMES)("acpx on %s", (runtime) => {
  test("--approve-all: the write is applied and the turn ends normally", () => {
    const { sandbox, result, file } = runAcpx(runtime, "--approve-all");
    try {
      expect(result.status).toBe(0);
      expect(existsSync(file) && readFileSync(file, "utf8")).toBe("written through acpx\n");
      expect(result.stdout).toContain('"stopReason":"end_turn"');
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);

  test("--deny-all: the write is refused, the file never appears, the turn still ends", () => {
    const { sandbox, result, file } = runAcpx(runtime, "--deny-all");
    try {
      expect(existsSync(file)).toBe(false);
      expect(result.stdout).toContain('"stopReason":"end_turn"');
      expect(result.stdout).toContain('"status":"failed"');
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);
});
