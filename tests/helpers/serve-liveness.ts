/**
 * What `agent serve` must do while one client's tool call runs long (a
 * search, a page conversion): answer another client's handshake (and
 * new session) and `/healthz` before that call completes, then end the turn
 * on `session/cancel` without the call completing.
 */
import { expect } from "bun:test";
import { acp, initialize, type TestClient } from "./acp-client.ts";
import { finalStatus } from "./scenario.ts";
import type { ServeProcess } from "./serve-process.ts";

export async function expectLiveThenCancelled(
  server: ServeProcess,
  clients: { alice: TestClient; bob: TestClient },
  running: { sessionId: string; toolCallId: string; turn: Promise<acp.PromptResponse> },
  /** Where the other client opens a session of its own too, after its handshake. */
  otherSessionCwd?: string,
): Promise<void> {
  const { alice, bob } = clients;
  const { sessionId, toolCallId, turn } = running;
  expect((await initialize(bob)).protocolVersion).toBe(1);
  if (otherSessionCwd) await bob.agent.request(acp.methods.agent.session.new, { cwd: otherSessionCwd, mcpServers: [] });
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  // All answered while the call was still running, not after it.
  expect(finalStatus(alice.updates(sessionId), toolCallId)).not.toBe("completed");
  await alice.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  expect((await turn).stopReason).toBe("cancelled");
  expect(finalStatus(alice.updates(sessionId), toolCallId)).not.toBe("completed");
}
