/**
 * A real turn against real HTTP: the fake model server plays Anthropic
 * Messages, OpenAI Responses and an openai-compatible endpoint, and the CLI
 * on each runtime is driven by the SDK client over NDJSON.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, connectClient, connectStream, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { contentLengthStream } from "../helpers/raw-frames.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";

const { methods } = acp;
const SECRET = "sk-test-NEVER-PRINT-4f1c9a7e2b";

interface ProviderSetup {
  name: string;
  args: string[];
  env(server: FakeModelServer): Record<string, string>;
  settings(server: FakeModelServer): Record<string, unknown>;
  contextWindow: number;
  /** USD per million input/output tokens when the catalog knows the price. */
  price?: { input: number; output: number };
}

const PROVIDERS: ProviderSetup[] = [
  {
    name: "openai-compatible",
    args: [],
    env: () => ({ LOCAL_KEY: SECRET }),
    settings: (server) => ({
      defaultModel: "local/qwen3",
      maxRetries: 0,
      providers: {
        local: { api: "openai-compatible", baseUrl: `${server.url}/v1`, apiKeyEnv: "LOCAL_KEY", models: [{ id: "qwen3", contextWindow: 32768, reasoning: true }] },
      },
    }),
    contextWindow: 32768,
  },
  {
    name: "anthropic via ANTHROPIC_BASE_URL",
    args: ["--model", "anthropic/claude-sonnet-4-5"],
    // No /v1: Anthropic's own convention; acp-edge adds it.
    env: (server) => ({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: SECRET }),
    settings: () => ({ maxRetries: 0 }),
    contextWindow: 200_000,
    price: { input: 3, output: 15 },
  },
  {
    name: "openai responses via OPENAI_BASE_URL",
    args: ["--model", "openai/gpt-5"],
    env: (server) => ({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: SECRET }),
    settings: () => ({ maxRetries: 0 }),
    contextWindow: 400_000,
    price: { input: 1.25, output: 10 },
  },
];

for (const runtime of RUNTIMES) {
  describe.each(PROVIDERS.map((p) => [p.name, p] as const))(`${runtime}: %s`, (_name, provider) => {
    let sandbox: Sandbox;
    let server: FakeModelServer;
    let proc: AgentProcess;
    let client: TestClient;
    let sessionId: string;
    const permissionRequests: acp.RequestPermissionRequest[] = [];

    beforeAll(async () => {
      sandbox = makeSandbox();
      sandbox.write("project/hello.txt", "hello world\n");
      sandbox.write("outside.txt", "secret outside the project\n");
      sandbox.write("project/AGENTS.md", "Project rule: answer in haiku.\n");
      sandbox.write("home/AGENTS.md", "User rule: be brief.\n");
      server = await startFakeModelServer();
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify(provider.settings(server)));
      proc = spawnAgent(runtime, ["agent", "stdio", ...provider.args], { env: { ACP_EDGE_HOME: sandbox.home, ...provider.env(server) } });
      client = connectClient(proc, {
        // Reads outside the session's directories ask first; this editor says no.
        onPermission: (params) => {
          permissionRequests.push(params);
          return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "reject_once")!.optionId } };
        },
      });
      await initialize(client);
      ({ sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
    });

    afterAll(async () => {
      proc.child.kill("SIGKILL");
      await server.close();
      sandbox.cleanup();
    });

    test("a tool call round trip ends with end_turn", async () => {
      server.push(
        { thinking: "I should read the file.", toolCalls: [{ id: "call_1", name: "read", input: { path: "hello.txt" } }], usage: { input: 120, output: 30 } },
        { text: "The file says hello world.", usage: { input: 200, output: 12 } },
      );
      const before = client.updates(sessionId).length;
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "What does hello.txt say?" }] });
      expect(stopReason).toBe("end_turn");
      const updates = client.updates(sessionId).slice(before);

      const thoughts = updates.filter((u) => u.sessionUpdate === "agent_thought_chunk");
      expect(thoughts.map((u) => (u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text" ? u.content.text : "")).join("")).toBe("I should read the file.");
      const call = updates.find((u) => u.sessionUpdate === "tool_call");
      expect(call).toMatchObject({ toolCallId: "call_1", title: "Read hello.txt", kind: "read", status: "pending", locations: [{ path: join(sandbox.project, "hello.txt"), line: 1 }] });
      const statuses = updates.filter((u) => u.sessionUpdate === "tool_call_update").map((u) => (u.sessionUpdate === "tool_call_update" ? u.status : ""));
      expect(statuses).toEqual(["in_progress", "completed"]);
      const done = updates.findLast((u) => u.sessionUpdate === "tool_call_update");
      expect(JSON.stringify(done)).toContain("hello world");
      expect(agentText(updates)).toBe("The file says hello world.");

      const usage = updates.filter((u) => u.sessionUpdate === "usage_update");
      expect(usage).toHaveLength(2);
      expect(usage[0]).toMatchObject({ size: provider.contextWindow });
      if (provider.price) {
        // Cumulative over the session: both calls of this first turn.
        const expected = ((120 + 200) * provider.price.input + (30 + 12) * provider.price.output) / 1e6;
        expect(usage[1]).toMatchObject({ cost: { currency: "USD" } });
        expect((usage[1] as { cost: { amount: number } }).cost.amount).toBeCloseTo(expected, 6);
      } else {
        expect(usage[1]).not.toHaveProperty("cost");
      }
      const messageIds = new Set(updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => (u.sessionUpdate === "agent_message_chunk" ? u.messageId : "")));
      expect(messageIds.size).toBe(1);

      // The system prompt carries the context files and where the agent works.
      const first = JSON.stringify(server.requests.at(-2)!.body);
      expect(first).toContain("Project rule: answer in haiku.");
      expect(first).toContain("User rule: be brief.");
      expect(first).toContain(sandbox.project);
      // The second request carried the tool result back to the model.
      expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("hello world");
    });

    test("a provider error answers -32603 without secrets, and the next prompt works", async () => {
      server.push({ error: { status: 500, message: "upstream exploded" } }, { text: "recovered" });
      const error = await rpcError(client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "fail" }] }), -32603);
      expect(error.message).toContain("upstream exploded");
      expect(error.message).toContain("500");
      expect(JSON.stringify(error)).not.toContain(SECRET);
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "retry" }] });
      expect(stopReason).toBe("end_turn");
    });

    test("cancel aborts the HTTP stream at once and answers cancelled", async () => {
      server.push({ text: "word ".repeat(200), chunkSize: 5, chunkDelayMs: 30 });
      const before = client.updates(sessionId).length;
      const aborted = server.abortedStreams;
      const turn = client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "long" }] });
      await waitFor(() => client.updates(sessionId).slice(before).some((u) => u.sessionUpdate === "agent_message_chunk"), 10_000, "streaming");
      const cancelledAt = Date.now();
      await client.agent.notify(methods.agent.session.cancel, { sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      expect(Date.now() - cancelledAt).toBeLessThan(1500);
      await waitFor(() => server.abortedStreams > aborted, 5000, "the server to see the stream closed");
    });

    test("a read outside the session roots asks first; when rejected nothing is read", async () => {
      server.push({ toolCalls: [{ id: "call_escape", name: "read", input: { path: "../outside.txt" } }] }, { text: "I cannot read that." });
      const before = client.updates(sessionId).length;
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read ../outside.txt" }] });
      expect(stopReason).toBe("end_turn");
      const failed = client.updates(sessionId).slice(before).findLast((u) => u.sessionUpdate === "tool_call_update");
      expect(failed).toMatchObject({ toolCallId: "call_escape", status: "failed" });
      expect(JSON.stringify(failed)).toContain("rejected");
      expect(permissionRequests.at(-1)?.toolCall).toMatchObject({ toolCallId: "call_escape", title: `Read ${join(sandbox.root, "outside.txt")}`, kind: "read" });
      expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain("secret outside the project");
    });

    test("images and embedded resources reach the model", async () => {
      server.push({ text: "seen" });
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
      await client.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "look" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "resource", resource: { uri: "file:///notes.md", text: "embedded note text", mimeType: "text/markdown" } },
          { type: "resource_link", uri: `file://${join(sandbox.project, "hello.txt")}`, name: "hello.txt" },
        ],
      });
      const body = JSON.stringify(server.requests.at(-1)!.body);
      expect(body).toContain(png.slice(0, 40));
      expect(body).toContain("embedded note text");
      expect(body).toContain("hello world");
    });

    test("the API key never reaches stdout or stderr", () => {
      expect(JSON.stringify(client.received)).not.toContain(SECRET);
      expect(proc.stderr()).not.toContain(SECRET);
    });
  });
}

/** The same round trip with the SDK client speaking Content-Length frames instead of NDJSON. */
for (const runtime of RUNTIMES) {
  describe.each(PROVIDERS.slice(0, 2).map((p) => [p.name, p] as const))(`${runtime} over Content-Length: %s`, (_name, provider) => {
    test("initialize → session/new → prompt with a tool call → end_turn", async () => {
      const sandbox = makeSandbox();
      const server = await startFakeModelServer([
        { toolCalls: [{ id: "call_cl", name: "read", input: { path: "hello.txt" } }] },
        { text: "Framed answer." },
      ]);
      try {
        sandbox.write("project/hello.txt", "hello through frames\n");
        writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify(provider.settings(server)));
        const proc = spawnAgent(runtime, ["agent", "stdio", ...provider.args], { env: { ACP_EDGE_HOME: sandbox.home, ...provider.env(server) } });
        const client = connectStream(contentLengthStream(proc) as acp.Stream);
        await initialize(client);
        const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
        const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read hello.txt" }] });
        expect(stopReason).toBe("end_turn");
        const updates = client.updates(sessionId);
        expect(updates.find((u) => u.sessionUpdate === "tool_call")).toMatchObject({ toolCallId: "call_cl", title: "Read hello.txt" });
        expect(agentText(updates)).toBe("Framed answer.");
        expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("hello through frames");
        client.close();
        proc.child.kill("SIGKILL");
      } finally {
        await server.close();
        sandbox.cleanup();
      }
    }, 60_000);
  });
}
