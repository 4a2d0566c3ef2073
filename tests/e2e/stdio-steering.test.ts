/**
 * `_session/steering` over stdio against the fake model server, on every
 * runtime: a steered message lands between steps (after the step's tool
 * results, in the next model request), exactly once, in order; a running
 * tool and a pending permission request are left alone; a reply that would
 * end the turn is followed by another call; steering an idle session, a
 * cancelled turn or a compaction; the bounds and the refusals. The server
 * holds replies until the test releases them, so every interleaving is
 * ordered by events.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { manualGate, startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { conversation, isSummaryRequest, prompt, steer, useFakeModel, userChunks } from "../helpers/queue-steer.ts";
import { startAgent, type RunningAgent } from "../helpers/session-agent.ts";

const { methods } = acp;

describe.each(RUNTIMES)("steering over stdio on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: FakeModelServer;
  let agent: RunningAgent;
  /** Permission requests the client received, answered by `answerPermission`. */
  const permissions: Array<{ request: acp.RequestPermissionRequest; answer(kind: acp.PermissionOptionKind): void }> = [];

  beforeAll(async () => {
    sandbox = makeSandbox();
    sandbox.write("project/hello.txt", "hello world\n");
    server = await startFakeModelServer();
    useFakeModel(sandbox, server);
    agent = await startAgent(runtime, sandbox, {
      args: ["--approval-mode", "yolo"],
      onPermission: (request) =>
        new Promise((resolve) => {
          permissions.push({
            request,
            answer: (kind) => resolve({ outcome: { outcome: "selected", optionId: request.options.find((o) => o.kind === kind)!.optionId } }),
          });
        }),
    });
  });

  afterAll(async () => {
    await agent.kill();
    await server.close();
    sandbox.cleanup();
  });

  test("initialize advertises steering at the top level and prompt queueing in agentCapabilities", async () => {
    const answer = agent.client.received.find((m) => (m.result as { protocolVersion?: number } | undefined)?.protocolVersion === 1)!.result as acp.InitializeResponse;
    expect(answer._meta).toMatchObject({ steering: { supported: true } });
    expect(answer.agentCapabilities?._meta).toMatchObject({ claudeCode: { promptQueueing: true } });
  });

  test("messages steered during a model call land after the step's tool results, in order, exactly once", async () => {
    const { sessionId } = await agent.newSession();
    const first = manualGate();
    const base = server.requests.length;
    server.push({ toolCalls: [{ id: "ls_1", name: "ls", input: { path: "." } }], gate: first.gate }, { text: "noted both" }, { text: "next turn" });
    const turn = prompt(agent.client, sessionId, "list the files");
    await server.request(base + 1);
    expect(await steer(agent.client, sessionId, "steer one")).toEqual({ outcome: "injected" });
    expect(await steer(agent.client, sessionId, "steer two")).toEqual({ outcome: "injected" });
    first.release();
    expect((await turn).stopReason).toBe("end_turn");

    expect(conversation(server.requests[base]!)).toEqual(["user:list the files"]);
    expect(conversation(server.requests[base + 1]!)).toEqual(["user:list the files", "assistant:call ls", "tool:ls_1", "user:steer one", "user:steer two"]);
    // Every client is shown them where they joined: after the tool's result, before the answer to them.
    const updates = agent.client.updates(sessionId);
    const toolDone = updates.findIndex((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    const landed = updates.findIndex((u) => u.sessionUpdate === "user_message_chunk");
    const answered = updates.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
    expect(toolDone).toBeGreaterThan(-1);
    expect(toolDone).toBeLessThan(landed);
    expect(landed).toBeLessThan(answered);
    expect(userChunks(updates)).toEqual(["steer one", "steer two"]);

    // They stay in the conversation once: the next turn sees each of them exactly once.
    expect((await prompt(agent.client, sessionId, "and now?")).stopReason).toBe("end_turn");
    const next = conversation(server.requests[base + 2]!);
    expect(next.filter((line) => line === "user:steer one")).toHaveLength(1);
    expect(next.filter((line) => line === "user:steer two")).toHaveLength(1);
    expect(next.at(-1)).toBe("user:and now?");
    expect(server.requests).toHaveLength(base + 3);
  });

  test("a running tool is not interrupted: the message lands after its result", async () => {
    const { sessionId } = await agent.newSession();
    const fifo = join(sandbox.root, `release-${runtime}`);
    execFileSync("mkfifo", [fifo]);
    const base = server.requests.length;
    server.push({ toolCalls: [{ id: "wait_1", name: "bash", input: { command: `cat ${fifo}` } }] }, { text: "done" });
    const turn = prompt(agent.client, sessionId, "wait for it");
    await waitFor(() => agent.client.updates(sessionId).some((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress"), 10_000, "the tool to run");
    expect(await steer(agent.client, sessionId, "while the tool runs")).toEqual({ outcome: "injected" });
    await writeFile(fifo, "released by the test\n");
    expect((await turn).stopReason).toBe("end_turn");
    const result = agent.client.updates(sessionId).findLast((u) => u.sessionUpdate === "tool_call_update");
    expect(result).toMatchObject({ toolCallId: "wait_1", status: "completed" });
    expect(JSON.stringify(result)).toContain("released by the test");
    expect(conversation(server.requests[base + 1]!).slice(-3)).toEqual(["assistant:call bash", "tool:wait_1", "user:while the tool runs"]);
  });

  test("steering during a permission request leaves the request pending; the message lands after the tool's result", async () => {
    const { sessionId } = await agent.newSession();
    await agent.client.agent.request(methods.agent.session.setMode, { sessionId, modeId: "ask" });
    const base = server.requests.length;
    const asked = permissions.length;
    server.push({ toolCalls: [{ id: "w_1", name: "write", input: { path: "steered.txt", content: "written" } }] }, { text: "wrote it" });
    const turn = prompt(agent.client, sessionId, "write a file");
    await waitFor(() => permissions.length > asked, 10_000, "the permission request");
    expect(await steer(agent.client, sessionId, "while you ask")).toEqual({ outcome: "injected" });
    expect(agent.client.received.some((m) => m.method === "$/cancel_request")).toBe(false);
    permissions.at(-1)!.answer("allow_once");
    expect((await turn).stopReason).toBe("end_turn");
    expect(agent.client.updates(sessionId).findLast((u) => u.sessionUpdate === "tool_call_update")).toMatchObject({ toolCallId: "w_1", status: "completed" });
    expect(conversation(server.requests[base + 1]!).slice(-3)).toEqual(["assistant:call write", "tool:w_1", "user:while you ask"]);
  });

  test("a message steered while the model gives its last reply gets another model call in the same turn", async () => {
    const { sessionId } = await agent.newSession();
    const last = manualGate();
    const base = server.requests.length;
    server.push({ text: "all done", gate: last.gate }, { text: "ok, also that" });
    const turn = prompt(agent.client, sessionId, "finish up");
    await server.request(base + 1);
    expect(await steer(agent.client, sessionId, "one more thing")).toEqual({ outcome: "injected" });
    last.release();
    expect((await turn).stopReason).toBe("end_turn");
    expect(conversation(server.requests[base + 1]!)).toEqual(["user:finish up", "assistant:all done", "user:one more thing"]);
    expect(server.requests).toHaveLength(base + 2);
  });

  test("idle: startedNewTurn runs a turn whose updates follow the answer; promptRequired runs nothing", async () => {
    const { sessionId } = await agent.newSession();
    // The session's announcement (its commands) follows the answer to session/new, on its own time: it is no update of
    // the turn below, so it must have arrived before the order of that turn's answer and updates is checked.
    await waitFor(() => agent.client.updates(sessionId).some((u) => u.sessionUpdate === "available_commands_update"), 10_000, "the session's commands");
    const base = server.requests.length;
    expect(await steer(agent.client, sessionId, "anyone there?", { steering: { idleBehavior: "promptRequired" } })).toEqual({ outcome: "promptRequired", reason: "noRunningTurn" });
    expect(server.requests).toHaveLength(base);
    server.push({ text: "started by steering" });
    const answers = agent.client.received.length;
    expect(await steer(agent.client, sessionId, "start something")).toEqual({ outcome: "startedNewTurn" });
    await waitFor(() => agent.client.updates(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"), 10_000, "the started turn");
    const answerAt = agent.client.received.findIndex((m, i) => i >= answers && (m.result as { outcome?: string } | undefined)?.outcome === "startedNewTurn");
    const firstUpdate = agent.client.received.findIndex((m, i) => i >= answers && m.method === "session/update" && (m.params as { sessionId?: string }).sessionId === sessionId);
    expect(firstUpdate).toBeGreaterThan(-1);
    expect(answerAt).toBeLessThan(firstUpdate);
    // Nobody sent a session/prompt for it: the steering client is shown what started it.
    expect(userChunks(agent.client.updates(sessionId))).toEqual(["start something"]);
    expect(conversation(server.requests[base]!)).toEqual(["user:start something"]);
    // A prompt queues behind the started turn: its answer says that turn is over.
    server.push({ text: "after it" });
    expect((await prompt(agent.client, sessionId, "after it")).stopReason).toBe("end_turn");
    // A steering message is never a command: "/help" goes to the model as typed.
    server.push({ text: "help yourself" }, { text: "after that" });
    expect(await steer(agent.client, sessionId, "/help")).toEqual({ outcome: "startedNewTurn" });
    expect((await prompt(agent.client, sessionId, "after that")).stopReason).toBe("end_turn");
    expect(conversation(server.requests[base + 2]!).at(-1)).toBe("user:/help");
  });

  test("steering during a cancel does not join the stopping turn: it starts a turn after it", async () => {
    const { sessionId } = await agent.newSession();
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "interrupted", gate: held.gate }, { text: "after the cancel" });
    const turn = prompt(agent.client, sessionId, "long work");
    await server.request(base + 1);
    await agent.client.agent.notify(methods.agent.session.cancel, { sessionId });
    const steered = steer(agent.client, sessionId, "change of plan");
    expect((await turn).stopReason).toBe("cancelled");
    expect(await steered).toEqual({ outcome: "startedNewTurn" });
    await server.request(base + 2);
    expect(conversation(server.requests[base + 1]!)).toEqual(["user:long work", "user:change of plan"]);
    held.release();
  });

  test("steering during an automatic compaction lands after it, verbatim, in the request that follows", async () => {
    // A tiny window: from the second turn on, the history is summarised before each call.
    const small = makeSandbox();
    const compacting = await startFakeModelServer();
    useFakeModel(small, compacting, { contextWindow: 2000 });
    const other = await startAgent(runtime, small, { args: ["--approval-mode", "yolo"] });
    try {
      const { sessionId } = await other.newSession();
      compacting.push({ text: "first answer" });
      expect((await prompt(other.client, sessionId, "first question")).stopReason).toBe("end_turn");
      const summary = manualGate();
      compacting.push({ text: "THE SUMMARY", gate: summary.gate }, { text: "second answer" });
      const turn = prompt(other.client, sessionId, "second question");
      expect(isSummaryRequest(await compacting.request(2))).toBe(true);
      expect(await steer(other.client, sessionId, "steered during compaction")).toEqual({ outcome: "injected" });
      summary.release();
      expect((await turn).stopReason).toBe("end_turn");
      const sent = conversation(compacting.requests[2]!);
      expect(sent.at(-1)).toBe("user:steered during compaction");
      expect(sent.filter((line) => line.includes("steered during compaction"))).toHaveLength(1);
      expect(JSON.stringify(compacting.requests[1]!.body)).not.toContain("steered during compaction");
    } finally {
      await other.kill();
      await compacting.close();
      small.cleanup();
    }
  });

  test("steering during /compact does not join the command: it starts a turn once the compaction is done", async () => {
    const { sessionId } = await agent.newSession();
    server.push({ text: "first answer" }, { text: "second answer" });
    expect((await prompt(agent.client, sessionId, "something to summarise")).stopReason).toBe("end_turn");
    expect((await prompt(agent.client, sessionId, "and something to keep")).stopReason).toBe("end_turn");
    const summary = manualGate();
    const base = server.requests.length;
    server.push({ text: "A SHORT SUMMARY", gate: summary.gate }, { text: "after the summary" });
    const compacting = prompt(agent.client, sessionId, "/compact");
    expect(isSummaryRequest(await server.request(base + 1))).toBe(true);
    const steered = steer(agent.client, sessionId, "steered during /compact");
    // Requests are taken in order: once a later one is answered, the steering message is waiting behind the command.
    await agent.client.agent.request(methods.agent.session.list, {});
    summary.release();
    expect((await compacting).stopReason).toBe("end_turn");
    expect(await steered).toEqual({ outcome: "startedNewTurn" });
    const after = conversation(await server.request(base + 2));
    expect(after.at(-1)).toBe("user:steered during /compact");
    expect(after.join("\n")).toContain("A SHORT SUMMARY");
  });

  test("refusals: -32602 for an unknown idleBehavior, an empty or audio prompt, bad blocks; -32002 for an unknown session", async () => {
    const { sessionId } = await agent.newSession();
    const send = (params: unknown) => agent.client.agent.request("_session/steering", params);
    const unknown = await rpcError(send({ sessionId, prompt: [{ type: "text", text: "x" }], _meta: { steering: { idleBehavior: "startTurn" } } }), -32602);
    expect(unknown.message).toContain("idleBehavior");
    await rpcError(send({ sessionId, prompt: [{ type: "text", text: "x" }], _meta: { steering: "promptRequired" } }), -32602);
    await rpcError(send({ sessionId, prompt: [] }), -32602);
    await rpcError(send({ sessionId, prompt: [{ type: "text", text: "   " }] }), -32602);
    await rpcError(send({ sessionId, prompt: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }] }), -32602);
    const huge = await rpcError(send({ sessionId, prompt: [{ type: "x".repeat(1 << 20) }] }), -32602);
    expect(JSON.stringify(huge).length).toBeLessThan(2000);
    await rpcError(send({ sessionId: "sess_missing", prompt: [{ type: "text", text: "x" }] }), -32002);
    // session/inject is not served: its shape is not settled.
    await rpcError(agent.client.agent.request("session/inject", { sessionId, prompt: [{ type: "text", text: "x" }] }), -32601);
  });

  test("at most 16 steered messages wait for one boundary; the next is refused with queue_full", async () => {
    const { sessionId } = await agent.newSession();
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "busy", gate: held.gate }, { text: "read them all" });
    const turn = prompt(agent.client, sessionId, "hold on");
    await server.request(base + 1);
    for (let i = 1; i <= 16; i++) expect(await steer(agent.client, sessionId, `s${i}`)).toEqual({ outcome: "injected" });
    const full = await rpcError(steer(agent.client, sessionId, "s17"), -32603);
    expect(full.data).toMatchObject({ code: "queue_full", queue: "steering", limit: 16, sessionId });
    held.release();
    expect((await turn).stopReason).toBe("end_turn");
    expect(conversation(server.requests[base + 1]!).slice(-16)).toEqual(Array.from({ length: 16 }, (_, i) => `user:s${i + 1}`));
  });
});
