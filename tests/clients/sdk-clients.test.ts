/**
 * The client matrix, official SDK: its `client()` app over each transport the
 * agent serves, as the SDK documents them — stdio (NDJSON), WebSocket
 * (`createWebSocketStream` with the bearer header and no subprotocol, with
 * the subprotocol, and a browser's subprotocol-carried token) and Streamable
 * HTTP (`createHttpStream`) — each driving one tool turn end to end on every
 * runtime.
 */
import { describe, expect, test } from "bun:test";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";
import { acp, connectClient, connectStream, initialize, type TestClient } from "../helpers/acp-client.ts";
import { RUNTIMES, spawnAgent } from "../helpers/agent-process.ts";
import { startServe, SUBPROTOCOL, TOKEN } from "../helpers/serve-process.ts";
import { expectToolTurnSeen, toolTurn, type ToolTurn } from "./tool-turn.ts";

const { methods } = acp;

/** initialize → session/new → one prompt with a tool call, checked as the client saw it. */
async function driveToolTurn(client: TestClient, turn: ToolTurn): Promise<void> {
  expect((await initialize(client)).protocolVersion).toBe(1);
  const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: turn.sandbox.project, mcpServers: [] });
  const answer = (await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "count the apples" }] })) as acp.PromptResponse & {
    usage?: { totalTokens: number };
  };
  expect(answer.stopReason).toBe("end_turn");
  expect(answer.usage?.totalTokens).toBe(146);
  expectToolTurnSeen(client.updates(sessionId), turn);
}

describe.each(RUNTIMES)("the SDK's client on %s", (runtime) => {
  test("over stdio", async () => {
    const turn = await toolTurn();
    const proc = spawnAgent(runtime, ["agent", "stdio"], { env: turn.env });
    const client = connectClient(proc);
    try {
      await driveToolTurn(client, turn);
    } finally {
      client.close();
      proc.child.kill("SIGKILL");
      await turn.close();
    }
  }, 60_000);

  test("over WebSocket and Streamable HTTP, as the SDK documents each", async () => {
    const turn = await toolTurn();
    const server = await startServe(runtime, turn.sandbox, { args: [], env: turn.env });
    const url = `${server.wsUrl}/acp`;
    const ways: Array<[string, () => TestClient]> = [
      // The README's form: a bearer header, no subprotocol offered.
      ["WebSocket, bearer header, no subprotocol", () => connectStream(createWebSocketStream(url, { WebSocket: WebSocket as never, headers: { Authorization: `Bearer ${TOKEN}` } }))],
      ["WebSocket, bearer header, the ACP subprotocol", () => connectStream(createWebSocketStream(url, { WebSocket: WebSocket as never, protocols: [SUBPROTOCOL], headers: { Authorization: `Bearer ${TOKEN}` } }))],
      ["WebSocket, the token as a subprotocol (browsers)", () => connectStream(createWebSocketStream(url, { WebSocket: WebSocket as never, protocols: [SUBPROTOCOL, `acp.bearer.${TOKEN}`] }))],
      ["Streamable HTTP", () => connectStream(createHttpStream(url.replace(/^ws/, "http"), { headers: { Authorization: `Bearer ${TOKEN}` } }))],
    ];
    try {
      for (const [name, connect] of ways) {
        const client = connect();
        try {
          await driveToolTurn(client, turn).catch((error: Error) => {
            throw new Error(`${name}: ${error.message}`);
          });
        } finally {
          client.close();
        }
        turn.script();
      }
    } finally {
      await server.stop("SIGKILL");
      await turn.close();
    }
  }, 90_000);
});
