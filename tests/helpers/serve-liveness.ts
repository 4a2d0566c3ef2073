/**
 * What `agent serve` must do while one client's tool call runs long (a
 * search, a page conversion): answer another client's handshake (and
 * new session) and `/healthz` before that call completes, then end the turn
 * on `session/cancel` without the call completing.
 */
import { expect } from "bun:test";
import { acp, initialize, type TestClient } from "./acp-client.ts";
import type { RuntimeName, Sandbox } from "./agent-process.ts";
import { finalStatus } from "./scenario.ts";
import { connectWs, startServe, TOKEN, type ServeProcess } from "./serve-process.ts";

/** Two clients over `/acp` of a read-only server playing `script` in `sandbox`: alice with a session, bob only connected; all ended afterwards. */
export async function withTwoClients(
  runtime: RuntimeName,
  sandbox: Sandbox,
  script: string,
  body: (server: ServeProcess, clients: { alice: TestClient; bob: TestClient }, sessionId: string) => Promise<void>,
): Promise<void> {
  const server = await startServe(runtime, sandbox, { script, args: ["--model", "faux/script", "--approval-mode", "read-only"] });
  const alice = connectWs(`${server.wsUrl}/acp`, TOKEN);
  const bob = connectWs(`${server.wsUrl}/acp`, TOKEN);
  try {
    await initialize(alice);
    const { sessionId } = await alice.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
    await body(server, { alice, bob }, sessionId);
  } finally {
    alice.close();
    bob.close();
    await server.stop("SIGKILL");
    sandbox.cleanup();
  }
}

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
