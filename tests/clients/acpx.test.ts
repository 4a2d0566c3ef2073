/**
 * The client matrix, an independent headless client: acpx, used as its
 * README says (`acpx --agent "<command>" exec "<prompt>"`, JSON output), on
 * each runtime. A read turn against the fake model server carries the file's
 * text in the tool call's `rawOutput`; the same write is applied with
 * --approve-all and refused with --deny-all (acpx advertises fs and terminal,
 * so the write goes through it).
 */
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentCommand, cleanEnv, makeSandbox, ROOT, RUNTIMES, type RuntimeName } from "../helpers/agent-process.ts";
import { ANSWER, NOTES, toolResultSeen, toolTurn } from "./tool-turn.ts";

const ACPX = join(ROOT, "node_modules", "acpx", "dist", "cli.js");

/** Runs acpx to its end without blocking this process (the fake model server answers from here). */
function acpx(
  runtime: RuntimeName,
  cwd: string,
  env: Record<string, string>,
  options: { policy: "--approve-all" | "--deny-all"; agentArgs: string[]; prompt: string },
): Promise<{ status: number | null; stdout: string }> {
  const { command, args } = agentCommand(runtime, ["agent", "stdio", ...options.agentArgs]);
  const child = spawn(process.execPath.endsWith("bun") ? "node" : process.execPath, [ACPX, "--cwd", cwd, "--format", "json", options.policy, "--agent", [command, ...args].join(" "), "exec", options.prompt], {
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout })));
}

async function runWrite(runtime: RuntimeName, policy: "--approve-all" | "--deny-all") {
  const sandbox = makeSandbox();
  const script = sandbox.write(
    "script.json",
    JSON.stringify([
      { toolCalls: [{ id: "w1", name: "write", input: { path: "from-acpx.txt", content: "written through acpx\n" } }] },
      { text: "finished the write" },
    ]),
  );
  const result = await acpx(runtime, sandbox.project, { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script, HOME: sandbox.root }, {
    policy,
    agentArgs: ["--model", "faux/script"],
    prompt: "write the file",
  });
  return { sandbox, result, file: join(sandbox.project, "from-acpx.txt") };
}

describe.each(RUNTIMES)("acpx on %s", (runtime) => {
  test("a read turn against the fake model server: the answer, and the file's text as the tool's rawOutput", async () => {
    const turn = await toolTurn();
    try {
      const result = await acpx(runtime, turn.sandbox.project, { ...turn.env, HOME: turn.sandbox.root }, { policy: "--approve-all", agentArgs: [], prompt: "count the apples" });
      expect(result.status).toBe(0);
      const lines = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
      const updates = lines.map((l) => (l.params as { update?: Record<string, unknown> } | undefined)?.update).filter(Boolean) as Array<Record<string, unknown>>;
      const read = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed").at(-1);
      expect(read?.rawOutput).toEqual([{ type: "text", text: NOTES.trim() }]);
      expect(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => (u.content as { text: string }).text).join("")).toBe(ANSWER);
      expect(result.stdout).toContain('"stopReason":"end_turn"');
      expect(toolResultSeen(turn.server)).toContain("42 apples");
    } finally {
      await turn.close();
    }
  }, 60_000);

  test("--approve-all: the write is applied and the turn ends normally", async () => {
    const { sandbox, result, file } = await runWrite(runtime, "--approve-all");
    try {
      expect(result.status).toBe(0);
      expect(existsSync(file) && readFileSync(file, "utf8")).toBe("written through acpx\n");
      expect(result.stdout).toContain('"stopReason":"end_turn"');
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);

  test("--deny-all: the write is refused, the file never appears, the turn still ends", async () => {
    const { sandbox, result, file } = await runWrite(runtime, "--deny-all");
    try {
      expect(existsSync(file)).toBe(false);
      expect(result.stdout).toContain('"stopReason":"end_turn"');
      expect(result.stdout).toContain('"status":"failed"');
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);
});
