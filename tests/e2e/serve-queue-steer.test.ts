/**
 * Queueing and steering through `agent serve` on every runtime, against the
 * fake model server: a client queues three prompts and steers the running
 * turn over WebSocket `/acp` and over Streamable HTTP; on a shared `/apc`
 * session any client queues or steers, every client sees the queued and
 * steered messages in the same order, and a queued turn's permission
 * requests go to the client that sent it; a client that disconnects with
 * prompts queued loses them while the other client's prompt runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { acp, connectStream, initialize, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { manualGate, startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { conversation, prompt, steer, useFakeModel, userChunks } from "../helpers/queue-steer.ts";
import { bearer, connectWs, createStoredSession, startServe, TOKEN, type ServeProcess } from "../helpers/serve-process.ts";

const { methods } = acp;

describe.each(RUNTIMES)("queueing and steering through agent serve on %s", (runtime) => {
  let sandbox: Sandbox;
  let model: FakeModelServer;
  let serve: ServeProcess;

  beforeAll(async () => {
    sandbox = makeSandbox();
    model = await startFakeModelServer();
    useFakeModel(sandbox, model);
    serve = await startServe(runtime, sandbox, { args: [] });
  });

  afterAll(async () => {
    await serve.stop("SIGKILL");
    await model.close();
    sandbox.cleanup();
  });

  /** Alice opens a stored session over `/apc` and Bob joins it; both initialized. */
  async function aliceAndBob(id: string, options: { alice?: Parameters<typeof connectWs>[2]; bob?: Parameters<typeof connectWs>[2] } = {}) {
    const url = `${serve.wsUrl}/v1/session/${id}/apc`;
    const alice = connectWs(url, TOKEN, options.alice);
    const bob = connectWs(url, TOKEN, options.bob);
    await initialize(alice);
    await initialize(bob);
    await alice.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
    await bob.agent.request(methods.agent.session.resume, { sessionId: id, cwd: sandbox.project });
    return { alice, bob };
  }

  /** One client queues three prompts behind a turn it steers; every answer and model request in order. */
  async function queueThreeAndSteer(client: TestClient): Promise<void> {
    await initialize(client);
    const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
    const held = manualGate();
    const base = model.requests.length;
    model.push({ toolCalls: [{ id: "ls_1", name: "ls", input: { path: "." } }], gate: held.gate }, { text: "steered" }, { text: "two" }, { text: "three" }, { text: "four" });
    const p1 = prompt(client, sessionId, "p1");
    await model.request(base + 1);
    expect(await steer(client, sessionId, "steer")).toEqual({ outcome: "injected" });
    const queued = [prompt(client, sessionId, "p2"), prompt(client, sessionId, "p3"), prompt(client, sessionId, "p4")];
    held.release();
    expect((await p1).stopReason).toBe("end_turn");
    for (const p of queued) expect((await p).stopReason).toBe("end_turn");
    const sent = model.requests.slice(base).map(conversation);
    expect(sent[1]!.slice(-3)).toEqual(["assistant:call ls", "tool:ls_1", "user:steer"]);
    expect(sent.map((lines) => lines.at(-1))).toEqual(["user:p1", "user:steer", "user:p2", "user:p3", "user:p4"]);
    expect(userChunks(client.updates(sessionId))).toEqual(["steer", "p2", "p3", "p4"]);
    client.close();
  }

  test("WebSocket /acp: a client queues three prompts and steers the running turn", async () => {
    await queueThreeAndSteer(connectWs(`${serve.wsUrl}/acp`, TOKEN));
  }, 60_000);

  test("Streamable HTTP /acp: a client queues three prompts and steers the running turn", async () => {
    await queueThreeAndSteer(connectStream(createHttpStream(`${serve.url}/acp`, { headers: bearer(TOKEN) })));
  }, 60_000);

  test("/apc: any client queues or steers; all see the same order; a queued turn asks its own client", async () => {
    const id = await createStoredSession(serve, sandbox.project);
    const asked: string[] = [];
    const allow = (who: string) => (p: acp.RequestPermissionRequest) => {
      asked.push(`${who}:${p.toolCall.toolCallId}`);
      return { outcome: { outcome: "selected" as const, optionId: p.options.find((o) => o.kind === "allow_once")!.optionId } };
    };
    const { alice, bob } = await aliceAndBob(id, { alice: { onPermission: allow("alice") }, bob: { onPermission: allow("bob") } });
    const held = manualGate();
    const base = model.requests.length;
    model.push({ text: "alice's answer", gate: held.gate }, { text: "heard bob" }, { toolCalls: [{ id: "w_bob", name: "write", input: { path: "bob.txt", content: "b" } }] }, { text: "bob's done" });
    const p1 = prompt(alice, id, "alice asks");
    await model.request(base + 1);
    expect(await steer(bob, id, "bob steers")).toEqual({ outcome: "injected" });
    const p2 = prompt(bob, id, "bob queues");
    held.release();
    expect((await p1).stopReason).toBe("end_turn");
    expect((await p2).stopReason).toBe("end_turn");
    expect(asked).toEqual(["bob:w_bob"]);
    expect(model.requests.slice(base).map((r) => conversation(r).at(-1))).toEqual(["user:alice asks", "user:bob steers", "user:bob queues", "tool:w_bob"]);
    // A client is not shown the prompt it sent and saw start; everything else every client sees, in one order.
    await waitFor(() => userChunks(alice.updates(id)).length >= 2, 5000, "alice to see bob's messages");
    expect(userChunks(alice.updates(id))).toEqual(["bob steers", "bob queues"]);
    expect(userChunks(bob.updates(id))).toEqual(["alice asks", "bob steers", "bob queues"]);
    alice.close();
    bob.close();
  }, 60_000);

  test("/apc: a client that leaves with prompts queued loses them; the other client's queued prompt runs", async () => {
    const id = await createStoredSession(serve, sandbox.project);
    const { alice, bob } = await aliceAndBob(id);
    const held = manualGate();
    const base = model.requests.length;
    model.push({ text: "alice never hears this", gate: held.gate }, { text: "bob's turn" });
    void prompt(alice, id, "alice runs").catch(() => undefined);
    await model.request(base + 1);
    const bobs = prompt(bob, id, "bob waits");
    void prompt(alice, id, "alice waits too").catch(() => undefined);
    // Requests are taken in order: once a later one is answered, alice's second prompt waits in the queue.
    await alice.agent.request(methods.agent.session.list, {});
    alice.close();
    expect((await bobs).stopReason).toBe("end_turn");
    expect(model.requests).toHaveLength(base + 2);
    expect(conversation(model.requests[base + 1]!)).toEqual(["user:alice runs", "user:bob waits"]);
    held.release();
    bob.close();
  }, 60_000);
});
