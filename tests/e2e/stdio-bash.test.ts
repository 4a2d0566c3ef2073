/**
 * Commands through the whole agent: live output without resending the
 * buffer, a 35,000-line flood with bounded traffic, exit codes, and cancel
 * killing the whole process tree.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { peakMemory, processGone } from "../helpers/processes.ts";
import { finalStatus, startScenario, toolEvents, toolText } from "../helpers/scenario.ts";

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", input: { command } }] });
const PAD = "x".repeat(90);
const FLOOD = `i=1; while [ $i -le 35000 ]; do echo "line $i ${PAD}"; i=$((i+1)); done`;
const wireBytes = (messages: unknown[]) => messages.reduce<number>((sum, m) => sum + JSON.stringify(m).length, 0);

describe.each(RUNTIMES)("bash on %s", (runtime) => {
  test("a 35,000-line output streams with bounded traffic and keeps the tail plus the full output file", async () => {
    const s = await startScenario(runtime, { script: [bash("flood", FLOOD), { text: "done" }], args: ["--approval-mode", "yolo"] });
    try {
      const peakBefore = peakMemory(s.proc.child.pid!);
      expect((await s.prompt("flood")).stopReason).toBe("end_turn");
      // The agent never holds the whole 3.5 MB output (let alone copies of it per update).
      expect(peakMemory(s.proc.child.pid!) - peakBefore).toBeLessThan(64 * 1024 * 1024);
      const events = toolEvents(s.updates(), "flood");
      const traffic = wireBytes(events);
      // 3.5 MB of output; what reaches the editor is a small, bounded fraction of it.
      expect(traffic).toBeLessThan(400 * 1024);
      const final = toolText(s.updates(), "flood");
      expect(final.includes(`line 35000 ${PAD}`)).toBe(true);
      expect(/Showing lines \d+-35000 of 35000[^\]]*Full output: /.test(final)).toBe(true);
      const fullPath = /Full output: ([^\]\\"]+)/.exec(final)?.[1];
      expect(fullPath && existsSync(fullPath)).toBe(true);
      expect(readFileSync(fullPath!, "utf8").split("\n").filter(Boolean)).toHaveLength(35000);
      expect(finalStatus(s.updates(), "flood")).toBe("completed");
    } finally {
      s.close();
    }
  }, 60_000);

  test("clients that render terminals get terminal_info, bounded terminal_output deltas and terminal_exit", async () => {
    const s = await startScenario(runtime, {
      script: [bash("t1", FLOOD), { text: "done" }],
      args: ["--approval-mode", "yolo"],
      capabilities: { _meta: { terminal_output: true } },
    });
    try {
      await s.prompt("flood");
      const events = toolEvents(s.updates(), "t1");
      expect(events[0]).toMatchObject({ sessionUpdate: "tool_call", kind: "execute", content: [{ type: "terminal", terminalId: "t1" }], _meta: { terminal_info: { terminal_id: "t1", cwd: s.sandbox.project } } });
      const deltas = events.map((e) => (e._meta as { terminal_output?: { data: string } } | undefined)?.terminal_output?.data).filter((d): d is string => d !== undefined);
      expect(deltas.length).toBeGreaterThan(1);
      for (const delta of deltas) expect(new TextEncoder().encode(delta).length).toBeLessThanOrEqual(16 * 1024 + 64);
      expect(deltas.join("").includes(`line 35000 ${PAD}`)).toBe(true);
      expect(wireBytes(events)).toBeLessThan(4.5 * 1024 * 1024);
      expect(events.at(-1)).toMatchObject({ status: "completed", content: [{ type: "terminal", terminalId: "t1" }], _meta: { terminal_exit: { terminal_id: "t1", exit_code: 0 } } });
    } finally {
      s.close();
    }
  }, 60_000);

  test("a non-zero exit fails the tool with its code, and the turn goes on", async () => {
    const s = await startScenario(runtime, { script: [bash("b1", "echo oops >&2; exit 3"), { text: "noted" }], args: ["--approval-mode", "yolo"] });
    try {
      expect((await s.prompt("fail")).stopReason).toBe("end_turn");
      expect(finalStatus(s.updates(), "b1")).toBe("failed");
      expect(toolText(s.updates(), "b1")).toContain("oops");
      expect(toolText(s.updates(), "b1")).toContain("Command exited with code 3");
      expect(toolEvents(s.updates(), "b1")[0]).toMatchObject({ title: "echo oops >&2; exit 3" });
    } finally {
      s.close();
    }
  });

  test("cancel while a command runs kills its whole process tree and answers cancelled", async () => {
    const s = await startScenario(runtime, {
      script: [bash("long", "echo $$ > shell.pid; sleep 30 & echo $! > child.pid; sleep 30"), { text: "never" }],
      args: ["--approval-mode", "yolo"],
    });
    try {
      const turn = s.prompt("wait");
      const childFile = join(s.sandbox.project, "child.pid");
      await waitFor(() => existsSync(childFile) && readFileSync(childFile, "utf8").trim() !== "", 10_000, "the command to start");
      const pids = ["shell.pid", "child.pid"].map((f) => Number(readFileSync(join(s.sandbox.project, f), "utf8")));
      const cancelledAt = Date.now();
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      expect(Date.now() - cancelledAt).toBeLessThan(5000);
      await waitFor(() => pids.every(processGone), 5000, "every process of the command to end");
    } finally {
      s.close();
    }
  });
});
