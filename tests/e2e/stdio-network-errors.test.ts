/**
 * Model requests that fail on the network, on every runtime's own `fetch`,
 * as the editor reads them: an endpoint nothing listens on, a host name
 * that does not resolve, and a connection dropped in the middle of an
 * answer (what came before it stays shown). No proxy is involved, so no
 * error names one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { agentText, connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";

const { methods } = acp;
const KEY = "sk-ant-network-test-key-9b1d44e2";

/** An Anthropic stream that sends its first words and holds the connection until `cut()` drops it. */
function droppingServer(): { server: Server; cut(): void } {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const start = { message: { id: "m", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
  const held = new Set<Socket>();
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(
        event("message_start", start) +
          event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
          event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello before the cut" } }),
      );
      if (response.socket) held.add(response.socket);
    });
  });
  return {
    server,
    cut() {
      for (const socket of held) socket.destroy();
      held.clear();
    },
  };
}

let dropping: ReturnType<typeof droppingServer>;
let droppingUrl: string;
let closedPort: number;

beforeAll(async () => {
  dropping = droppingServer();
  await new Promise<void>((resolve) => dropping.server.listen(0, "127.0.0.1", resolve));
  droppingUrl = `http://127.0.0.1:${(dropping.server.address() as AddressInfo).port}`;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(() => {
  dropping.server.closeAllConnections();
  dropping.server.close();
});

interface Agent {
  sandbox: Sandbox;
  proc: AgentProcess;
  client: TestClient;
  sessionId: string;
}

const running: Agent[] = [];
afterEach(() => {
  for (const agent of running.splice(0)) {
    agent.client.close();
    agent.proc.child.kill("SIGKILL");
    agent.sandbox.cleanup();
  }
});

async function startAgent(runtime: RuntimeName, baseUrl: string): Promise<Agent> {
  const sandbox = makeSandbox();
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
  const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"], {
    env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: KEY },
  });
  const client = connectClient(proc);
  const agent: Agent = { sandbox, proc, client, sessionId: "" };
  running.push(agent);
  await initialize(client);
  ({ sessionId: agent.sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
  return agent;
}

const prompt = (agent: Agent) => agent.client.agent.request(methods.agent.session.prompt, { sessionId: agent.sessionId, prompt: [{ type: "text", text: "hi" }] });

for (const runtime of RUNTIMES) {
  describe(`${runtime}: model requests that fail on the network`, () => {
    test("an endpoint nothing listens on: a refused connection, naming the URL", async () => {
      const agent = await startAgent(runtime, `http://127.0.0.1:${closedPort}`);
      const error = await rpcError(prompt(agent), -32603);
      expect(error.message).toBe(`Model request failed: anthropic: could not connect to http://127.0.0.1:${closedPort}/v1 (connection refused)`);
    });

    test("a host name that does not resolve: host not found", async () => {
      const agent = await startAgent(runtime, "http://provider.invalid");
      const error = await rpcError(prompt(agent), -32603);
      expect(error.message).toBe("Model request failed: anthropic: could not connect to http://provider.invalid/v1 (host not found)");
    });

    test("a connection dropped mid-answer: a broken stream, after the words that arrived", async () => {
      const agent = await startAgent(runtime, droppingUrl);
      const answer = rpcError(prompt(agent), -32603);
      // The connection goes once the editor has the words, so they cannot be lost in the same packet as the cut.
      await waitFor(() => agentText(agent.client.updates(agent.sessionId)) === "Hello before the cut", 20_000, "the first words");
      dropping.cut();
      const error = await answer;
      expect(error.message).toStartWith("Model request failed: anthropic: the response stream broke off (");
      expect(agentText(agent.client.updates(agent.sessionId))).toBe("Hello before the cut");
      expect(JSON.stringify(agent.client.received) + agent.proc.stderr()).not.toContain(KEY);
    });
  });
}
