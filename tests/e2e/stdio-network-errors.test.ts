/**
 * Model requests that fail on the network, on every runtime's own `fetch`,
 * as the editor reads them: an endpoint nothing listens on, a host name
 * that does not resolve, and a connection dropped in the middle of an
 * answer (what came before it stays shown). No proxy is involved, so no
 * error names one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { agentText } from "../helpers/acp-client.ts";
import { RUNTIMES, type RuntimeName } from "../helpers/agent-process.ts";
import { startAnthropicAgent, stopAnthropicAgents } from "../helpers/anthropic-agent.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";

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

afterEach(stopAnthropicAgents);

const startAgent = (runtime: RuntimeName, baseUrl: string) => startAnthropicAgent(runtime, baseUrl, { key: KEY });

for (const runtime of RUNTIMES) {
  describe(`${runtime}: model requests that fail on the network`, () => {
    test("an endpoint nothing listens on: a refused connection, naming the URL", async () => {
      const agent = await startAgent(runtime, `http://127.0.0.1:${closedPort}`);
      const error = await rpcError(agent.prompt("hi"), -32603);
      expect(error.message).toBe(`Model request failed: anthropic: could not connect to http://127.0.0.1:${closedPort}/v1 (connection refused)`);
    });

    test("a host name that does not resolve: host not found", async () => {
      const agent = await startAgent(runtime, "http://provider.invalid");
      const error = await rpcError(agent.prompt("hi"), -32603);
      expect(error.message).toBe("Model request failed: anthropic: could not connect to http://provider.invalid/v1 (host not found)");
    });

    test("a connection dropped mid-answer: a broken stream, after the words that arrived", async () => {
      const agent = await startAgent(runtime, droppingUrl);
      const answer = rpcError(agent.prompt("hi"), -32603);
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
