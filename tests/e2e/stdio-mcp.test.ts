/**
 * MCP servers passed with a session, end to end: a stdio server and a
 * streamable-HTTP server written for the tests, driven by the faux model
 * through the whole agent on each runtime.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, acp } from "../helpers/acp-client.ts";
import { makeSandbox, ROOT, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startHttpMcpServer } from "../helpers/mcp-test-server.ts";
import { processGone } from "../helpers/processes.ts";
import { answering, startScenario, toolEvents, toolText } from "../helpers/scenario.ts";

const { methods } = acp;
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const SERVER = join(ROOT, "tests", "helpers", "mcp-test-server.ts");
const SECRET = "sk-mcp-secret-never-shown-91827";

const stdioServer = (name: string, args: string[] = [], env: Array<{ name: string; value: string }> = []) => ({ name, command: BUN, args: [SERVER, "--stdio", ...args], env });
const call = (id: string, name: string, input: Record<string, unknown>) => ({ toolCalls: [{ id, name, input }] });

describe.each(RUNTIMES)("MCP servers on %s", (runtime) => {
  let http: Awaited<ReturnType<typeof startHttpMcpServer>>;
  beforeAll(async () => {
    http = await startHttpMcpServer({});
  });
  afterAll(async () => {
    await http.close();
  });

  test("stdio tools are listed and called; read-only ones run, mutating ones ask; secrets stay hidden", async () => {
    const answers = answering("allow_once");
    const s = await startScenario(runtime, {
      script: [
        call("e1", "mcp__notes__echo", { text: "hello mcp" }),
        call("w1", "mcp__notes__write_note", { note: "a note" }),
        call("s1", "mcp__notes__whoami", { env: "MCP_SECRET" }),
        call("v1", "mcp__notes__echo", { text: 42 }),
        { text: "done" },
      ],
      ...answers,
    });
    try {
      const notes = join(s.sandbox.root, "notes.txt");
      const { sessionId } = await s.client.agent.request(methods.agent.session.new, {
        cwd: s.sandbox.project,
        mcpServers: [stdioServer("notes", ["--notes", notes], [{ name: "MCP_SECRET", value: SECRET }])],
      });
      const { stopReason } = await s.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "use the tools" }] });
      expect(stopReason).toBe("end_turn");
      const updates = s.client.updates(sessionId);
      expect(toolEvents(updates, "e1")[0]).toMatchObject({ title: "notes: echo", kind: "read" });
      expect(toolText(updates, "e1")).toContain("hello mcp");
      expect(answers.requests.map((r) => r.toolCall.toolCallId)).toEqual(["w1"]);
      expect(answers.requests[0]!.options.find((o) => o.kind === "allow_always")?.name).toBe("Always allow mcp__notes__write_note in this session");
      expect(readFileSync(notes, "utf8")).toContain("a note");
      expect(toolText(updates, "s1")).toContain("[redacted]");
      expect(JSON.stringify(s.client.received)).not.toContain(SECRET);
      expect(s.proc.stderr()).not.toContain(SECRET);
      expect(toolEvents(updates, "v1").at(-1)).toMatchObject({ status: "failed" });
      expect(toolText(updates, "v1")).toContain("Invalid arguments");
    } finally {
      s.close();
    }
  }, 60_000);

  test("streamable HTTP servers with headers; a rule can deny a server's tools", async () => {
    const answers = answering("allow_once");
    const s = await startScenario(runtime, {
      script: [call("h1", "mcp__web__whoami", { header: "x-api-key" }), call("d1", "mcp__web__write_note", { note: "nope" }), { text: "ok" }],
      settings: { permissionRules: [{ action: "deny", tools: ["mcp__web__write_note"] }] },
      ...answers,
    });
    try {
      const { sessionId } = await s.client.agent.request(methods.agent.session.new, {
        cwd: s.sandbox.project,
        mcpServers: [{ type: "http", name: "web", url: `${http.url}/mcp`, headers: [{ name: "x-api-key", value: SECRET }] }],
      });
      await s.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
      const updates = s.client.updates(sessionId);
      expect(toolEvents(updates, "h1").at(-1)).toMatchObject({ status: "completed" });
      expect(toolText(updates, "h1")).toContain("[redacted]");
      expect(toolText(updates, "d1")).toContain("deny tools mcp__web__write_note");
      expect(answers.requests).toHaveLength(0);
      expect(JSON.stringify(s.client.received)).not.toContain(SECRET);
    } finally {
      s.close();
    }
  }, 60_000);

  test("sessions are isolated, a failing server gives a notice and a working session, close kills the server", async () => {
    const s = await startScenario(runtime, {
      script: [call("x1", "mcp__beta__echo", { text: "not mine" }), { text: "still working" }],
      args: ["--model", "faux/script", "--approval-mode", "yolo"],
    });
    try {
      const pidFile = join(s.sandbox.root, "alpha.pid");
      const alpha = await s.client.agent.request(methods.agent.session.new, {
        cwd: s.sandbox.project,
        mcpServers: [stdioServer("alpha", ["--pid-file", pidFile]), { name: "broken", command: "/nonexistent/mcp-server", args: [], env: [] }],
      });
      await s.client.agent.request(methods.agent.session.new, { cwd: s.sandbox.project, mcpServers: [stdioServer("beta")] });
      const { stopReason } = await s.client.agent.request(methods.agent.session.prompt, { sessionId: alpha.sessionId, prompt: [{ type: "text", text: "try beta" }] });
      expect(stopReason).toBe("end_turn");
      const updates = s.client.updates(alpha.sessionId);
      expect(toolText(updates, "x1")).toContain("Tool mcp__beta__echo not found");
      await waitFor(() => agentText(s.client.updates(alpha.sessionId)).includes('"broken"'), 10_000, "a notice about the broken server");
      expect(agentText(updates)).toContain("still working");

      await waitFor(() => existsSync(pidFile), 10_000, "alpha's pid");
      const pid = Number(readFileSync(pidFile, "utf8"));
      expect(processGone(pid)).toBe(false);
      await s.client.agent.request(methods.agent.session.close, { sessionId: alpha.sessionId });
      await waitFor(() => processGone(pid), 5000, "the stdio server to be killed");
    } finally {
      s.close();
    }
  }, 60_000);

  test("cancel during a slow MCP tool call answers cancelled quickly", async () => {
    const s = await startScenario(runtime, { script: [call("slow1", "mcp__notes__slow", { ms: 20_000 }), { text: "never" }], args: ["--model", "faux/script", "--approval-mode", "yolo"] });
    try {
      const { sessionId } = await s.client.agent.request(methods.agent.session.new, { cwd: s.sandbox.project, mcpServers: [stdioServer("notes")] });
      const turn = s.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "wait" }] });
      await waitFor(() => s.client.updates(sessionId).some((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "slow1" && u.status === "in_progress"), 15_000, "the slow call to start");
      const cancelledAt = Date.now();
      await s.client.agent.notify(methods.agent.session.cancel, { sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      expect(Date.now() - cancelledAt).toBeLessThan(2000);
    } finally {
      s.close();
    }
  }, 60_000);
});
