/**
 * The permission gate's three known holes, reproduced over stdio with the
 * faux model: read-only after "always allow", command lines that ride an
 * allow rule or an "always" answer, and deny rules spelled another way.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { EditorTerminals } from "../helpers/editor-capabilities.ts";
import { answering, finalStatus, startScenario, toolText } from "../helpers/scenario.ts";

const write = (id: string, path: string, content: string) => ({ toolCalls: [{ id, name: "write", input: { path, content } }] });
const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: "bash", input: { command } }] });
const done = { text: "done" };

describe.each(RUNTIMES)("the permission gate on %s", (runtime) => {
  test("read-only refuses what an always-allow and an allow rule let through; switching back restores the answer", async () => {
    const answers = answering("allow_always");
    const s = await startScenario(runtime, {
      script: [write("w1", "a.txt", "one\n"), done, write("w2", "b.txt", "two\n"), bash("b1", "touch made.txt"), done, write("w3", "c.txt", "three\n"), done],
      // Without a sandbox, read-only refuses commands outright (with one they run confined: stdio-sandbox.test.ts).
      settings: { permissionRules: [{ action: "allow", command: "touch" }], sandbox: "off" },
      ...answers,
    });
    try {
      await s.prompt("first");
      expect(answers.requests).toHaveLength(1);
      expect(existsSync(join(s.sandbox.project, "a.txt"))).toBe(true);
      await s.client.agent.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "read-only" });
      await s.prompt("second");
      expect(answers.requests).toHaveLength(1);
      expect(toolText(s.updates(), "w2")).toContain("read-only mode");
      expect(toolText(s.updates(), "b1")).toContain("read-only mode");
      expect(existsSync(join(s.sandbox.project, "b.txt"))).toBe(false);
      expect(existsSync(join(s.sandbox.project, "made.txt"))).toBe(false);
      await s.client.agent.request(acp.methods.agent.session.setMode, { sessionId: s.sessionId, modeId: "ask" });
      await s.prompt("third");
      expect(answers.requests).toHaveLength(1);
      expect(existsSync(join(s.sandbox.project, "c.txt"))).toBe(true);
    } finally {
      s.close();
    }
  });

  test("an allow rule cannot be ridden by ANSI-C quoting or a comment: the agent asks", async () => {
    const answers = answering("reject_once");
    const s = await startScenario(runtime, {
      script: [bash("b1", "npm test $'\\'' ; touch X"), bash("b2", "echo hi #'\ntouch Y\n#'"), bash("b3", "echo hi"), done],
      settings: { permissionRules: [{ action: "allow", command: "npm test" }, { action: "allow", command: "echo hi" }] },
      ...answers,
    });
    try {
      await s.prompt("go");
      expect(existsSync(join(s.sandbox.project, "X"))).toBe(false);
      expect(existsSync(join(s.sandbox.project, "Y"))).toBe(false);
      expect(answers.requests.map((r) => r.toolCall.toolCallId)).toEqual(["b1", "b2"]);
      // A line acp-edge cannot account for is never offered an "always allow".
      expect(answers.requests[0]!.options.map((o) => o.kind)).not.toContain("allow_always");
      expect(finalStatus(s.updates(), "b3")).toBe("completed");
    } finally {
      s.close();
    }
  });

  test("an always-allow answer cannot be ridden either", async () => {
    const answers = answering((_request, index) => (index === 0 ? "allow_always" : "reject_once"));
    const s = await startScenario(runtime, { script: [bash("b1", "echo hi"), bash("b2", "echo hi $'\\'' ; touch X"), bash("b3", "echo hi again"), done], ...answers });
    try {
      await s.prompt("go");
      expect(existsSync(join(s.sandbox.project, "X"))).toBe(false);
      expect(answers.requests.map((r) => r.toolCall.toolCallId)).toEqual(["b1", "b2"]);
      expect(finalStatus(s.updates(), "b3")).toBe("completed");
    } finally {
      s.close();
    }
  });

  test("a deny rule catches the quoted and the absolute spelling without asking", async () => {
    const answers = answering("allow_once");
    const s = await startScenario(runtime, {
      script: [bash("b1", '"touch" x1'), bash("b2", "/usr/bin/touch x2"), bash("b3", "sh -c 'touch x3'"), done],
      settings: { permissionRules: [{ action: "deny", command: "touch" }] },
      ...answers,
    });
    try {
      await s.prompt("go");
      for (const [id, file] of [["b1", "x1"], ["b2", "x2"], ["b3", "x3"]] as const) {
        expect(existsSync(join(s.sandbox.project, file))).toBe(false);
        expect(toolText(s.updates(), id)).toContain('deny command \\"touch\\"');
      }
      expect(answers.requests).toHaveLength(0);
    } finally {
      s.close();
    }
  });

  test("an editor terminal runs the line with a POSIX shell even when $SHELL is another kind", async () => {
    const terminals = new EditorTerminals();
    const s = await startScenario(runtime, {
      script: [bash("b1", "echo hi"), done],
      args: ["--approval-mode", "yolo"],
      capabilities: { terminal: true },
      env: { SHELL: "/usr/bin/fish" },
      terminals,
    });
    try {
      await s.prompt("go");
      expect(terminals.created).toHaveLength(1);
      expect(terminals.created[0]).toMatchObject({ command: "/bin/sh", args: ["-c", "echo hi"] });
    } finally {
      s.close();
    }
  });
});
