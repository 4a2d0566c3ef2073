/**
 * An agent over stdio whose model is the fake model server, for the
 * language-server tests: one session in a fresh project, and one prompt per
 * tool call with what the model was sent back and what the editor was shown.
 */
import { writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { expect } from "bun:test";
import { connectClient, initialize, acp, type TestClient } from "./acp-client.ts";
import { makeSandbox, NODE, spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "./agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "./fake-model-server.ts";
import { killProcessesWithEnv, processesWithEnv } from "./processes.ts";

export interface LspAgent {
  sandbox: Sandbox;
  proc: AgentProcess;
  client: TestClient;
  sessionId: string;
  /** Runs one prompt in which the model makes this call: the tool results the model was sent next, and the call's last update as the editor saw it. */
  callOnce(id: string, name: string, input: unknown): Promise<{ sent: string; shown: string }>;
  /** Processes started by the agent (they inherit its temp dir, the test's own), the agent itself left out. */
  children(): Array<{ pid: number; command: string }>;
  close(): Promise<void>;
}

/** Starts the agent in `mode` with these user settings (the fake provider's added), after `prepare` filled the project; `pathFirst` is a folder put first on its `PATH`. */
export async function startLspAgent(
  runtime: RuntimeName,
  options: { mode: string; settings: Record<string, unknown>; prepare?: (sandbox: Sandbox) => void; args?: string[]; pathFirst?: (sandbox: Sandbox) => string },
): Promise<LspAgent> {
  const sandbox = makeSandbox();
  options.prepare?.(sandbox);
  const server: FakeModelServer = await startFakeModelServer();
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, ...options.settings }));
  const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5", "--approval-mode", options.mode, ...(options.args ?? [])], {
    env: { PATH: [...(options.pathFirst ? [options.pathFirst(sandbox)] : []), pathWithoutPackageBins()].join(delimiter), TMPDIR: sandbox.root, ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-test-lsp-0123456789" },
  });
  const client = connectClient(proc);
  await initialize(client);
  const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
  return {
    sandbox,
    proc,
    client,
    sessionId,
    async callOnce(id, name, input) {
      server.push({ toolCalls: [{ id, name, input }] }, { text: "ok" });
      const before = server.requests.length;
      const { stopReason } = await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
      expect(stopReason).toBe("end_turn");
      const sent = toolResultsSent(server.requests[before + 1]!.body);
      const updates = client.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id);
      return { sent, shown: JSON.stringify(updates.at(-1)) };
    },
    children: () => processesWithEnv(`TMPDIR=${sandbox.root}`).filter((p) => p.pid !== proc.child.pid),
    async close() {
      proc.child.kill("SIGKILL");
      // A failed assertion leaves nothing running behind it.
      killProcessesWithEnv(`TMPDIR=${sandbox.root}`);
      await server.close();
      sandbox.cleanup();
    },
  };
}

/** The test runner's PATH without package bin folders (this repository's among them): servers are found in the project or not at all. */
function pathWithoutPackageBins(): string {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((folder) => !folder.endsWith(join("node_modules", ".bin")))
    .concat(dirname(NODE))
    .join(delimiter);
}

/** The tool results in the last message of an Anthropic Messages request body, as text. */
function toolResultsSent(body: { messages?: Array<{ role: string; content: unknown }> }): string {
  const last = body?.messages?.at(-1);
  if (!last || !Array.isArray(last.content)) return "";
  return (last.content as Array<{ type: string; content?: unknown }>)
    .filter((part) => part.type === "tool_result")
    .map((part) => (typeof part.content === "string" ? part.content : JSON.stringify(part.content)))
    .join("\n");
}
