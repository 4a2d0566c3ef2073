/**
 * `rawOutput` is what each tool returned to the model: every built-in tool
 * and an MCP tool run in one turn against the fake model server, and the
 * text of each call's `rawOutput` is compared with the tool result the model
 * received in its next request. The tool's summary travels in
 * `_meta["acp-edge/summary"]`, and `session/load` replays both the same.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { acp, connectClient, initialize, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { useFakeProvider } from "../helpers/fake-provider.ts";
import { PNG_BASE64, startHttpMcpServer, type HttpMcpServer } from "../helpers/mcp-test-server.ts";

const { methods } = acp;
const SECRET = "sk-test-raw-output-NEVER-SHOWN-93ac1";

const CALLS = [
  { id: "c_read", name: "read", input: { path: "notes.txt" } },
  { id: "c_image", name: "read", input: { path: "dot.png" } },
  { id: "c_ls", name: "ls", input: { path: "." } },
  { id: "c_find", name: "find", input: { pattern: "*.txt" } },
  { id: "c_grep", name: "grep", input: { pattern: "second" } },
  { id: "c_write", name: "write", input: { path: "new.txt", content: "fresh\n" } },
  { id: "c_edit", name: "edit", input: { path: "notes.txt", edits: [{ oldText: "second", newText: "2nd" }] } },
  { id: "c_bash", name: "bash", input: { command: `echo out-of-bash; echo ${SECRET}` } },
  { id: "c_plan", name: "plan", input: { entries: [{ content: "check", status: "completed", priority: "high" }] } },
  { id: "c_missing", name: "read", input: { path: "missing.txt" } },
  { id: "c_mcp", name: "mcp__web__echo", input: { text: "through mcp" } },
];

type ToolUpdate = { rawOutput?: unknown; _meta?: Record<string, unknown>; status?: string; toolCallId?: string };

/** The text parts of a `rawOutput`, joined as the model's tool message joins them. */
function rawText(update: ToolUpdate | undefined): string {
  const blocks = update?.rawOutput as Array<{ type: string; text?: string }> | undefined;
  return (blocks ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

/** The final update of each call (live: the last tool_call_update; replay: the tool_call itself). */
function finalOf(updates: acp.SessionUpdate[], id: string): ToolUpdate | undefined {
  return updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id).at(-1) as ToolUpdate | undefined;
}

/** What the model was told for each tool call: the tool messages of the request after the calls. */
function toolMessages(server: FakeModelServer): Map<string, string> {
  const body = server.requests.at(-1)?.body as { messages: Array<{ role: string; tool_call_id?: string; content: unknown }> };
  const out = new Map<string, string>();
  for (const m of body.messages) {
    if (m.role !== "tool" || !m.tool_call_id) continue;
    out.set(m.tool_call_id, typeof m.content === "string" ? m.content : JSON.stringify(m.content));
  }
  return out;
}

describe.each(RUNTIMES)("rawOutput on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: FakeModelServer;
  let mcp: HttpMcpServer;
  let proc: AgentProcess;
  let client: TestClient;
  let sessionId: string;

  beforeAll(async () => {
    sandbox = makeSandbox();
    sandbox.write("project/notes.txt", "first line\nsecond line\n");
    sandbox.write("project/dot.png", Buffer.from(PNG_BASE64, "base64"));
    server = await startFakeModelServer();
    mcp = await startHttpMcpServer();
    useFakeProvider(sandbox.home, server, { keyEnv: "LOCAL_KEY", models: [{ id: "m", input: ["text", "image"] }] });
    proc = spawnAgent(runtime, ["agent", "stdio", "--approval-mode", "yolo"], { env: { ACP_EDGE_HOME: sandbox.home, LOCAL_KEY: SECRET } });
    client = connectClient(proc);
    await initialize(client);
    ({ sessionId } = await client.agent.request(methods.agent.session.new, {
      cwd: sandbox.project,
      mcpServers: [{ type: "http", name: "web", url: `${mcp.url}/mcp`, headers: [] }],
    }));
  });

  afterAll(async () => {
    client.close();
    proc.child.kill("SIGKILL");
    await Promise.all([server.close(), mcp.close()]);
    sandbox.cleanup();
  });

  test("every tool's rawOutput is the result the model got, its summary is in _meta, and load replays both", async () => {
    server.push({ toolCalls: CALLS }, { text: "all done" });
    const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "use every tool" }] });
    expect(stopReason).toBe("end_turn");
    const live = client.updates(sessionId);
    const told = toolMessages(server);

    for (const call of CALLS) {
      const update = finalOf(live, call.id);
      expect(update?.rawOutput, call.id).toBeDefined();
      const text = rawText(update);
      expect(text.length, call.id).toBeGreaterThan(0);
      // The model's tool message holds exactly this text (the image call adds its image beside it).
      expect(told.get(call.id), call.id).toContain(text);
    }
    expect(rawText(finalOf(live, "c_read"))).toContain("second line");
    expect(rawText(finalOf(live, "c_bash"))).toContain("out-of-bash");
    expect(rawText(finalOf(live, "c_mcp"))).toBe("through mcp");
    expect(finalOf(live, "c_missing")?.status).toBe("failed");
    // The image the model was given is in rawOutput as it is in content.
    expect(finalOf(live, "c_image")?.rawOutput).toContainEqual({ type: "image", data: PNG_BASE64, mimeType: "image/png" });
    // Secrets are redacted in rawOutput as in content.
    expect(JSON.stringify(live)).not.toContain(SECRET);

    // The summary the tool made, no longer in rawOutput.
    const summary = (id: string) => finalOf(live, id)?._meta?.["acp-edge/summary"] as Record<string, unknown> | undefined;
    expect(summary("c_read")).toMatchObject({ path: join(sandbox.project, "notes.txt"), totalLines: 2 });
    expect(summary("c_bash")).toMatchObject({ exitCode: 0 });
    expect(summary("c_mcp")).toMatchObject({ server: "web", tool: "echo" });
    expect(JSON.stringify(finalOf(live, "c_read")?.rawOutput)).not.toContain("totalLines");

    // session/load on a second connection replays the same rawOutput and summary.
    const second = spawnAgent(runtime, ["agent", "stdio"], { env: { ACP_EDGE_HOME: sandbox.home, LOCAL_KEY: SECRET } });
    const other = connectClient(second);
    try {
      await initialize(other);
      client.close();
      proc.child.kill("SIGKILL");
      await proc.exited;
      await other.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      const replayed = other.updates(sessionId);
      for (const call of CALLS) {
        const before = finalOf(live, call.id);
        const after = finalOf(replayed, call.id);
        expect(after?.rawOutput, call.id).toEqual(before?.rawOutput);
        expect(after?._meta?.["acp-edge/summary"], call.id).toEqual(before?._meta?.["acp-edge/summary"]);
      }
    } finally {
      other.close();
      second.child.kill("SIGKILL");
    }
  }, 60_000);
});
