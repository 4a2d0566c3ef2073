/**
 * Link floods through `agent serve` on every runtime, over WebSocket `/acp`,
 * Streamable HTTP `/acp` and a session's `/apc`: a small prompt or steering
 * message (also while a turn runs, and queued behind it) naming a 2 MiB
 * project file 400 or 2,400 times is refused -32602 at once; the server
 * stays up for every other client, its peak memory grows by far less than
 * the floods would expand into, the model is never asked with more than the
 * budget, and a plain follow-up prompt in the same session ends `end_turn`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { acp, initialize, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError } from "../helpers/expect-error.ts";
import { manualGate, startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { peakMemory } from "../helpers/processes.ts";
import { prompt, useFakeModel } from "../helpers/queue-steer.ts";
import { connectHttp, connectWs, createStoredSession, startServe, TOKEN, type ServeProcess } from "../helpers/serve-process.ts";

const { methods } = acp;
/** The fake model's window (200,000 tokens) at 4 bytes a token. */
const BUDGET = 800_000;
const MiB = 1024 * 1024;

describe.each(RUNTIMES)("link floods through agent serve on %s", (runtime) => {
  let sandbox: Sandbox;
  let model: FakeModelServer;
  let serve: ServeProcess;

  beforeAll(async () => {
    sandbox = makeSandbox();
    sandbox.write("project/big.txt", "0123456789abcdef\n".repeat(Math.floor((2 * MiB - 1) / 17)));
    model = await startFakeModelServer();
    useFakeModel(sandbox, model);
    serve = await startServe(runtime, sandbox, { args: [] });
  });

  afterAll(async () => {
    await serve.stop("SIGKILL");
    await model.close();
    sandbox.cleanup();
  });

  const flood = (count: number): acp.ContentBlock[] => [
    { type: "text", text: "read these" },
    ...Array.from({ length: count }, () => ({ type: "resource_link" as const, uri: pathToFileURL(join(sandbox.project, "big.txt")).href, name: "big.txt" })),
  ];

  /** Floods `sessionId` idle, then while a turn runs and with a prompt queued; then a plain prompt ends `end_turn`. */
  async function floodSession(client: TestClient, sessionId: string): Promise<void> {
    const before = peakMemory(serve.proc.child.pid!);
    const requests = model.requests.length;
    for (const count of [400, 2400]) {
      const refused = await rpcError(client.agent.request(methods.agent.session.prompt, { sessionId, prompt: flood(count) }), -32602);
      expect(refused.data).toMatchObject({ code: "prompt_too_large", budget: BUDGET });
      for (const meta of [undefined, { steering: { idleBehavior: "promptRequired" } }]) {
        const steered = await rpcError(client.agent.request("_session/steering", { sessionId, prompt: flood(count), ...(meta ? { _meta: meta } : {}) }), -32602);
        expect(steered.data).toMatchObject({ code: "prompt_too_large" });
      }
    }
    expect(model.requests.length).toBe(requests);

    // While a turn runs: neither steered in nor queued.
    const held = manualGate();
    model.push({ text: "held", gate: held.gate }, { text: "after" });
    const running = prompt(client, sessionId, "hold on");
    await model.request(requests + 1);
    await rpcError(client.agent.request("_session/steering", { sessionId, prompt: flood(2400) }), -32602);
    await rpcError(client.agent.request(methods.agent.session.prompt, { sessionId, prompt: flood(400) }), -32602);
    held.release();
    expect((await running).stopReason).toBe("end_turn");
    expect((await prompt(client, sessionId, "after")).stopReason).toBe("end_turn");
    for (const request of model.requests.slice(requests)) expect(JSON.stringify(request.body).length).toBeLessThan(BUDGET);
    expect(peakMemory(serve.proc.child.pid!) - before).toBeLessThan(300 * MiB);
  }

  test("over WebSocket /acp", async () => {
    const client = connectWs(`${serve.wsUrl}/acp`, TOKEN);
    await initialize(client);
    const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
    await floodSession(client, sessionId);
    client.close();
  }, 120_000);

  test("over Streamable HTTP /acp", async () => {
    const client = connectHttp(serve.url, TOKEN);
    await initialize(client);
    const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
    await floodSession(client, sessionId);
    client.close();
  }, 120_000);

  test("over a session's /apc, with another client on it that keeps working", async () => {
    const id = await createStoredSession(serve, sandbox.project);
    const url = `${serve.wsUrl}/v1/session/${id}/apc`;
    const alice = connectWs(url, TOKEN);
    const bob = connectWs(url, TOKEN);
    await initialize(alice);
    await initialize(bob);
    await alice.agent.request(methods.agent.session.resume, { sessionId: id, cwd: sandbox.project });
    await bob.agent.request(methods.agent.session.resume, { sessionId: id, cwd: sandbox.project });
    await floodSession(alice, id);
    model.push({ text: "bob's answer" });
    expect((await prompt(bob, id, "bob here")).stopReason).toBe("end_turn");
    alice.close();
    bob.close();
  }, 120_000);
});
