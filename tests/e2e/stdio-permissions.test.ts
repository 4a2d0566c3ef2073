/**
 * Approval modes, permission rules and the editor's answers, end to end:
 * the faux model asks for writes, edits and commands; the SDK client plays
 * the editor and answers (or does not).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { answering, finalStatus, startScenario, toolEvents, toolText } from "../helpers/scenario.ts";

const write = (id: string, path: string, content: string) => ({ toolCalls: [{ id, name: "write", input: { path, content } }] });
const edit = (id: string, path: string, oldText: string, newText: string) => ({ toolCalls: [{ id, name: "edit", input: { path, edits: [{ oldText, newText }] } }] });
const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", input: { command } }] });
const done = { text: "done" };

describe.each(RUNTIMES)("permissions on %s", (runtime) => {
  test("ask mode: a write asks with its diff before it runs; allow once applies it once", async () => {
    const answers = answering("allow_once");
    const s = await startScenario(runtime, { script: [write("w1", "a.txt", "one\n"), write("w2", "b.txt", "two\n"), done], ...answers });
    try {
      expect((await s.prompt("write two files")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(2);
      const first = answers.requests[0]!;
      expect(first.sessionId).toBe(s.sessionId);
      expect(first.toolCall).toMatchObject({ toolCallId: "w1", title: "Write a.txt", kind: "edit", status: "pending" });
      expect(first.toolCall.content).toEqual([{ type: "diff", path: join(s.sandbox.project, "a.txt"), oldText: null, newText: "one\n" }]);
      expect(first.options.map((o) => [o.kind, o.name])).toEqual([
        ["allow_once", "Allow once"],
        ["allow_always", "Always allow edits in this session"],
        ["reject_once", "Reject"],
        ["reject_always", "Always reject edits in this session"],
      ]);
      expect(readFileSync(join(s.sandbox.project, "a.txt"), "utf8")).toBe("one\n");
      expect(readFileSync(join(s.sandbox.project, "b.txt"), "utf8")).toBe("two\n");
      // Never in_progress before approval: the request precedes the in_progress update on the wire.
      const requestAt = s.client.received.findIndex((m) => m.method === "session/request_permission");
      const inProgressAt = s.client.received.findIndex(
        (m) => m.method === "session/update" && JSON.stringify(m).includes('"toolCallId":"w1"') && JSON.stringify(m).includes('"in_progress"'),
      );
      expect(requestAt).toBeGreaterThan(-1);
      expect(inProgressAt).toBeGreaterThan(requestAt);
      const statuses = toolEvents(s.updates(), "w1").map((u) => ("status" in u ? u.status : undefined)).filter(Boolean);
      expect(statuses).toEqual(["pending", "in_progress", "completed"]);
      expect(toolText(s.updates(), "w1")).toContain('"type":"diff"');
    } finally {
      s.close();
    }
  });

  test("allow always sticks: later edits in the session run without asking", async () => {
    const answers = answering("allow_always");
    const s = await startScenario(runtime, {
      script: [write("w1", "a.txt", "alpha\n"), edit("e1", "a.txt", "alpha", "beta"), done, write("w2", "c.txt", "gamma\n"), done],
      ...answers,
    });
    try {
      await s.prompt("first");
      await s.prompt("second turn");
      expect(answers.requests).toHaveLength(1);
      expect(readFileSync(join(s.sandbox.project, "a.txt"), "utf8")).toBe("beta\n");
      expect(readFileSync(join(s.sandbox.project, "c.txt"), "utf8")).toBe("gamma\n");
      const edited = toolEvents(s.updates(), "e1").at(-1);
      expect(edited).toMatchObject({ status: "completed", locations: [{ path: join(s.sandbox.project, "a.txt"), line: 1 }] });
      expect(JSON.stringify(edited)).toContain('"oldText":"alpha\\n","newText":"beta\\n"');
    } finally {
      s.close();
    }
  });

  test("reject once, then reject always: the third identical command is refused without asking", async () => {
    const answers = answering((_request, index) => (index === 0 ? "reject_once" : "reject_always"));
    const s = await startScenario(runtime, { script: [bash("b1", "echo hi"), bash("b2", "echo hi"), bash("b3", "echo hi"), done], ...answers });
    try {
      expect((await s.prompt("run it thrice")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(2);
      expect(answers.requests[0]!.toolCall).toMatchObject({ title: "echo hi", kind: "execute" });
      expect(answers.requests[1]!.options.find((o) => o.kind === "reject_always")?.name).toBe("Always reject `echo hi` in this session");
      for (const id of ["b1", "b2", "b3"]) expect(finalStatus(s.updates(), id)).toBe("failed");
      expect(toolText(s.updates(), "b3")).toContain("Rejected for this session");
    } finally {
      s.close();
    }
  });

  test("read-only mode without a sandbox refuses edits and commands without asking", async () => {
    const answers = answering("allow_once");
    // With a sandbox, commands run in a read-only one instead (stdio-sandbox.test.ts).
    const s = await startScenario(runtime, {
      script: [write("w1", "a.txt", "x"), bash("b1", "touch made.txt"), { toolCalls: [{ id: "r1", name: "ls", input: {} }] }, done],
      args: ["--approval-mode", "read-only"],
      settings: { sandbox: "off" },
      ...answers,
    });
    try {
      await s.prompt("try");
      expect(answers.requests).toHaveLength(0);
      expect(toolText(s.updates(), "w1")).toContain("read-only mode");
      expect(toolText(s.updates(), "b1")).toContain("read-only mode");
      expect(finalStatus(s.updates(), "r1")).toBe("completed");
      expect(existsSync(join(s.sandbox.project, "a.txt"))).toBe(false);
      expect(existsSync(join(s.sandbox.project, "made.txt"))).toBe(false);
      expect(s.newSession.modes?.currentModeId).toBe("read-only");
    } finally {
      s.close();
    }
  });

  test("write mode: edits inside run, commands ask; yolo: nothing asks", async () => {
    const answers = answering("allow_once");
    const s = await startScenario(runtime, { script: [write("w1", "a.txt", "x"), bash("b1", "echo ok"), done, bash("b2", "echo yolo"), done], args: ["--approval-mode", "write"], ...answers });
    try {
      await s.prompt("first");
      expect(answers.requests.map((r) => r.toolCall.toolCallId)).toEqual(["b1"]);
      await s.client.agent.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "yolo" });
      await s.prompt("second");
      expect(answers.requests).toHaveLength(1);
      expect(toolText(s.updates(), "b2")).toContain("yolo");
    } finally {
      s.close();
    }
  });

  test("rules come before the mode: a deny never reaches the editor and names the rule", async () => {
    const answers = answering("allow_once");
    const s = await startScenario(runtime, {
      script: [
        { toolCalls: [{ id: "r1", name: "read", input: { path: "secrets/key.txt" } }] },
        bash("b1", "echo allowed-by-rule"),
        bash("b2", "echo ok; rm -rf important"),
        done,
      ],
      settings: { permissionRules: [{ action: "deny", path: "secrets/", tools: ["read"] }, { action: "allow", command: "echo" }, { action: "deny", command: "rm -rf" }] },
      files: { "project/secrets/key.txt": "TOP SECRET", "project/important/x": "keep" },
      ...answers,
    });
    try {
      await s.prompt("go");
      expect(answers.requests).toHaveLength(0);
      expect(toolText(s.updates(), "r1")).toContain('deny path \\"secrets/\\" (read)');
      expect(toolText(s.updates(), "r1")).not.toContain("TOP SECRET");
      expect(finalStatus(s.updates(), "b1")).toBe("completed");
      expect(toolText(s.updates(), "b2")).toContain('deny command \\"rm -rf\\"');
      expect(existsSync(join(s.sandbox.project, "important/x"))).toBe(true);
    } finally {
      s.close();
    }
  });

  test("a project settings file may only tighten", async () => {
    const answers = answering("reject_once");
    const s = await startScenario(runtime, {
      script: [bash("b1", "echo from-project"), done],
      files: { "project/.acp-edge/settings.json": JSON.stringify({ approvalMode: "yolo", permissionRules: [{ action: "allow", command: "echo" }] }) },
      ...answers,
    });
    try {
      await s.prompt("go");
      expect(answers.requests).toHaveLength(1);
      expect(s.proc.stderr()).toContain("may only tighten");
    } finally {
      s.close();
    }
  });

  test("no answer within the permission timeout blocks the tool and the turn goes on", async () => {
    const answers = answering("never");
    const s = await startScenario(runtime, { script: [write("w1", "a.txt", "x"), done], settings: { permissionTimeoutSeconds: 1 }, ...answers });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(toolText(s.updates(), "w1")).toContain("did not answer the permission request within 1 s");
      expect(existsSync(join(s.sandbox.project, "a.txt"))).toBe(false);
    } finally {
      s.close();
    }
  });

  test("cancel while a permission request is pending answers the prompt cancelled", async () => {
    const answers = answering("never");
    const s = await startScenario(runtime, { script: [write("w1", "a.txt", "x"), done], ...answers });
    try {
      const turn = s.prompt("go");
      await waitFor(() => answers.requests.length === 1, 10_000, "the permission request");
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      await waitFor(() => s.client.received.some((m) => m.method === "$/cancel_request"), 5000, "$/cancel_request for the pending request");
      expect(existsSync(join(s.sandbox.project, "a.txt"))).toBe(false);
    } finally {
      s.close();
    }
  });

  test("two sessions' permission requests stay apart", async () => {
    const pending: Array<{ params: acp.RequestPermissionRequest; answer: (kind: acp.PermissionOptionKind) => void }> = [];
    const s = await startScenario(runtime, {
      script: [write("wa", "note.txt", "from A"), write("wb", "note.txt", "from B"), done, done],
      onPermission: (params) =>
        new Promise((resolve) => {
          pending.push({ params, answer: (kind) => resolve({ outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === kind)!.optionId } }) });
        }),
    });
    try {
      const other = s.sandbox.write("second/.keep", "");
      const { sessionId: second } = await s.client.agent.request(acp.methods.agent.session.new, { cwd: join(other, ".."), mcpServers: [] });
      const turnA = s.prompt("A");
      await waitFor(() => pending.length === 1, 10_000, "A's request");
      const turnB = s.client.agent.request(acp.methods.agent.session.prompt, { sessionId: second, prompt: [{ type: "text", text: "B" }] });
      await waitFor(() => pending.length === 2, 10_000, "B's request");
      expect(pending.map((p) => [p.params.sessionId, p.params.toolCall.toolCallId])).toEqual([
        [s.sessionId, "wa"],
        [second, "wb"],
      ]);
      pending[1]!.answer("allow_once");
      await turnB;
      pending[0]!.answer("reject_once");
      await turnA;
      expect(existsSync(join(s.sandbox.project, "note.txt"))).toBe(false);
      expect(readFileSync(join(s.sandbox.root, "second/note.txt"), "utf8")).toBe("from B");
    } finally {
      s.close();
    }
  });

  test("modes and config options stay in sync", async () => {
    const s = await startScenario(runtime, { script: [] });
    try {
      expect(s.newSession.modes?.availableModes.map((m) => m.id)).toEqual(["read-only", "ask", "write", "auto", "yolo"]);
      expect(s.newSession.configOptions?.map((o) => [o.id, o.currentValue])).toEqual([
        ["mode", "ask"],
        ["model", "faux/script"],
        ["thought_level", "medium"],
      ]);
      const before = s.updates().length;
      await s.client.agent.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "write" });
      const afterMode = s.updates(before).filter((u) => u.sessionUpdate !== "available_commands_update");
      expect(afterMode[0]).toEqual({ sessionUpdate: "current_mode_update", currentModeId: "write" });
      expect(afterMode[1]).toMatchObject({ sessionUpdate: "config_option_update" });
      const result = await s.client.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "mode", value: "read-only" });
      expect(result.configOptions.find((o) => o.id === "mode")?.currentValue).toBe("read-only");
      expect(s.updates().some((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "read-only")).toBe(true);
      const thinking = await s.client.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "thought_level", value: "high" });
      expect(thinking.configOptions.find((o) => o.id === "thought_level")?.currentValue).toBe("high");
      await rpcError(s.client.agent.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "plan" }), -32602);
      await rpcError(s.client.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "mode", value: "reckless" }), -32602);
      await rpcError(s.client.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "colour", value: "red" }), -32602);
      await rpcError(s.client.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: s.sessionId, configId: "model", value: "openai/gpt-5" }), -32602);
      await rpcError(s.client.agent.request(acp.methods.agent.session.setMode, { sessionId: "sess_nope", modeId: "ask" }), -32002);
    } finally {
      s.close();
    }
  });
});

describe.each(RUNTIMES)("plans and failing editors on %s", (runtime) => {
  test("the plan tool sends the full list as a plan update, without asking", async () => {
    const answers = answering("allow_once");
    const entries = [
      { content: "Read the code", status: "completed" },
      { content: "Fix the bug", status: "in_progress", priority: "high" },
      { content: "Run the tests", status: "pending" },
    ];
    const s = await startScenario(runtime, { script: [{ toolCalls: [{ id: "p1", name: "plan", input: { entries } }] }, done], settings: { approvalMode: "write" }, ...answers });
    try {
      await s.prompt("plan it");
      expect(answers.requests).toHaveLength(0);
      expect(s.newSession.modes?.currentModeId).toBe("write");
      const plan = s.updates().find((u) => u.sessionUpdate === "plan");
      expect(plan).toEqual({
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", status: "completed", priority: "medium" },
          { content: "Fix the bug", status: "in_progress", priority: "high" },
          { content: "Run the tests", status: "pending", priority: "medium" },
        ],
      });
      expect(toolEvents(s.updates(), "p1")[0]).toMatchObject({ kind: "think", title: "Update plan (1/3 done)" });
    } finally {
      s.close();
    }
  });

  test("an editor that fails the permission request blocks the tool with an actionable message", async () => {
    const s = await startScenario(runtime, {
      script: [write("w1", "a.txt", "x"), done],
      onPermission: () => {
        throw new Error("the dialog crashed");
      },
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const text = toolText(s.updates(), "w1");
      expect(text).toContain("could not answer the permission request");
      expect(text).toContain("Ask the user to approve it again");
      expect(existsSync(join(s.sandbox.project, "a.txt"))).toBe(false);
    } finally {
      s.close();
    }
  });
});
