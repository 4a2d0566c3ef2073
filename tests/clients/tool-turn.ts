/**
 * The turn every client of the matrix drives: the model (the fake model
 * server, over real HTTP) reads `notes.txt` with the `read` tool, then
 * answers from it. Each client test starts the agent its own way and checks
 * the same things through what its library gives back.
 */
import { expect } from "bun:test";
import { agentText, type acp } from "../helpers/acp-client.ts";
import { makeSandbox, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { useFakeProvider } from "../helpers/fake-provider.ts";

/** What `notes.txt` holds: the tool's output the model (and rawOutput) must carry. */
export const NOTES = "matrix notes: 42 apples and 7 pears\n";
/** The model's answer after the tool call. */
export const ANSWER = "There are 42 apples.";
/** The key of the fake provider (never a real one). */
export const MATRIX_KEY = "sk-test-matrix-5d2a9c";

/** A sandbox project with the notes, the fake model server scripted for one tool turn, and settings that point at it. */
export interface ToolTurn {
  sandbox: Sandbox;
  server: FakeModelServer;
  /** Environment the agent needs (its home and the provider's key). */
  env: Record<string, string>;
  /** Scripts one more tool turn (each client may drive several). */
  script(): void;
  close(): Promise<void>;
}

export async function toolTurn(): Promise<ToolTurn> {
  const sandbox = makeSandbox();
  sandbox.write("project/notes.txt", NOTES);
  const server = await startFakeModelServer();
  useFakeProvider(sandbox.home, server, {
    keyEnv: "MATRIX_KEY",
    models: [
      { id: "small", name: "Small" },
      { id: "large", name: "Large", contextWindow: 65536 },
    ],
  });
  const turn: ToolTurn = {
    sandbox,
    server,
    env: { ACP_EDGE_HOME: sandbox.home, MATRIX_KEY },
    script: () =>
      server.push(
        { toolCalls: [{ id: `read_${server.requests.length}`, name: "read", input: { path: "notes.txt" } }], usage: { input: 50, output: 10 } },
        { text: ANSWER, usage: { input: 80, output: 6 } },
      ),
    async close() {
      await server.close();
      sandbox.cleanup();
    },
  };
  turn.script();
  return turn;
}

/** The text the model was given for its tool call in the request after it. */
export function toolResultSeen(server: FakeModelServer): string {
  const body = server.requests.at(-1)?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined;
  const tool = body?.messages?.findLast((m) => m.role === "tool");
  return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content ?? "");
}

/** The `read` call's last update as a client received it. */
export function finalReadUpdate(updates: readonly acp.SessionUpdate[]): Record<string, unknown> | undefined {
  return updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId.startsWith("read_")).at(-1) as
    | Record<string, unknown>
    | undefined;
}

/** What every client that sees `session/update` must have seen of the turn: the answer, the read's completion with the file's text as `rawOutput`, and the model given that text. */
export function expectToolTurnSeen(updates: readonly acp.SessionUpdate[], turn: ToolTurn): void {
  expect(agentText([...updates])).toBe(ANSWER);
  const read = finalReadUpdate(updates);
  expect(read?.status).toBe("completed");
  expect(read?.rawOutput).toEqual([{ type: "text", text: NOTES.trim() }]);
  expect(toolResultSeen(turn.server)).toContain("42 apples");
}
