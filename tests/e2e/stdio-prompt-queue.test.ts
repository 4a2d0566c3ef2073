/**
 * Prompt queueing over stdio against the fake model server, on every
 * runtime: prompts sent while a turn runs wait and run in order, each
 * answered with its own stop reason and shown when its turn starts; a cancel
 * answers the queue `cancelled` and later prompts run; `$/cancel_request`
 * drops one; the bound; commands and templates resolved when their turn
 * starts; end of input; and after `kill -9` mid-turn, `session/load`
 * replays the user messages in the order the model saw them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { manualGate, startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { conversation, prompt, steer, useFakeModel, userChunks } from "../helpers/queue-steer.ts";
import { startAgent, type RunningAgent } from "../helpers/session-agent.ts";

const { methods } = acp;

/** The lines of a session's journal file under `home`. */
function journal(home: string, sessionId: string): Array<Record<string, any>> {
  const root = join(home, "sessions");
  for (const folder of readdirSync(root)) {
    const file = join(root, folder, `${sessionId}.jsonl`);
    try {
      return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    } catch {
      // not in this folder
    }
  }
  throw new Error(`no journal for ${sessionId}`);
}

/** The texts of the user messages a journal holds, in order. */
function journalUserTexts(lines: Array<Record<string, any>>): string[] {
  return lines.filter((l) => l.type === "message" && l.message.role === "user").map((l) => l.message.content.map((p: { text?: string }) => p.text ?? "").join(""));
}

describe.each(RUNTIMES)("prompt queue over stdio on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: FakeModelServer;
  let agent: RunningAgent;

  beforeAll(async () => {
    sandbox = makeSandbox();
    sandbox.write("home/prompts/greet.md", "Say hello to $1 from the template.");
    server = await startFakeModelServer();
    useFakeModel(sandbox, server);
    agent = await startAgent(runtime, sandbox, { args: ["--approval-mode", "yolo"] });
  });

  afterAll(async () => {
    await agent.kill();
    await server.close();
    sandbox.cleanup();
  });

  test("three prompts sent during a turn run in order, each answered with its own stop reason and shown when it starts", async () => {
    const { sessionId } = await agent.newSession();
    const first = manualGate();
    const base = server.requests.length;
    server.push({ text: "one", gate: first.gate }, { text: "two" }, { text: "three", stop: "max_tokens" }, { text: "four" });
    const p1 = prompt(agent.client, sessionId, "p1");
    await server.request(base + 1);
    const p2 = prompt(agent.client, sessionId, "p2");
    const p3 = prompt(agent.client, sessionId, "p3");
    const p4 = prompt(agent.client, sessionId, "p4");
    // Queued, not refused: nothing of them is shown or asked before their turn (a later request's answer says they arrived).
    await agent.client.agent.request(methods.agent.session.list, {});
    expect(userChunks(agent.client.updates(sessionId))).toEqual([]);
    expect(server.requests).toHaveLength(base + 1);
    first.release();
    expect((await p1).stopReason).toBe("end_turn");
    expect((await p2).stopReason).toBe("end_turn");
    expect((await p3).stopReason).toBe("max_tokens");
    expect((await p4).stopReason).toBe("end_turn");

    const answers = agent.client.received.filter((m) => "result" in m && (m.result as { stopReason?: string }).stopReason !== undefined).slice(-4);
    expect(answers.map((m) => (m.result as { stopReason: string }).stopReason)).toEqual(["end_turn", "end_turn", "max_tokens", "end_turn"]);
    expect(server.requests.slice(base).map((r) => conversation(r).at(-1))).toEqual(["user:p1", "user:p2", "user:p3", "user:p4"]);
    // Each queued prompt was shown to its client when its turn started: after the turn before it ended, before its own answer.
    const updates = agent.client.updates(sessionId);
    expect(userChunks(updates)).toEqual(["p2", "p3", "p4"]);
    const shown = (text: string) => updates.findIndex((u) => u.sessionUpdate === "user_message_chunk" && u.content.type === "text" && u.content.text === text);
    const said = (text: string) => updates.findIndex((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text === text);
    expect(said("one")).toBeLessThan(shown("p2"));
    expect(shown("p2")).toBeLessThan(said("two"));
    expect(said("two")).toBeLessThan(shown("p3"));
    expect(shown("p4")).toBeLessThan(said("four"));
  });

  test("session/cancel stops the turn and answers every queued prompt cancelled; a prompt after it runs", async () => {
    const { sessionId } = await agent.newSession();
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "never heard", gate: held.gate }, { text: "after the cancel" });
    const p1 = prompt(agent.client, sessionId, "p1");
    await server.request(base + 1);
    const p2 = prompt(agent.client, sessionId, "p2");
    const p3 = prompt(agent.client, sessionId, "p3");
    await agent.client.agent.notify(methods.agent.session.cancel, { sessionId });
    const p4 = prompt(agent.client, sessionId, "p4");
    expect((await p1).stopReason).toBe("cancelled");
    expect((await p2).stopReason).toBe("cancelled");
    expect((await p3).stopReason).toBe("cancelled");
    expect((await p4).stopReason).toBe("end_turn");
    expect(server.requests).toHaveLength(base + 2);
    expect(conversation(server.requests[base + 1]!)).toEqual(["user:p1", "user:p4"]);
    held.release();
  });

  test("$/cancel_request for one queued prompt drops only it", async () => {
    const { sessionId } = await agent.newSession();
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "one", gate: held.gate }, { text: "three" });
    const p1 = prompt(agent.client, sessionId, "p1");
    await server.request(base + 1);
    const dropping = new AbortController();
    const p2 = prompt(agent.client, sessionId, "p2", { cancellationSignal: dropping.signal });
    const p3 = prompt(agent.client, sessionId, "p3");
    dropping.abort();
    expect((await p2).stopReason).toBe("cancelled");
    held.release();
    expect((await p1).stopReason).toBe("end_turn");
    expect((await p3).stopReason).toBe("end_turn");
    expect(server.requests.slice(base).map((r) => conversation(r).at(-1))).toEqual(["user:p1", "user:p3"]);
  });

  test("at most 16 prompts wait; the next is refused with -32603 queue_full and nothing is lost", async () => {
    const { sessionId } = await agent.newSession();
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "one", gate: held.gate });
    const p1 = prompt(agent.client, sessionId, "p1");
    await server.request(base + 1);
    const queued = Array.from({ length: 16 }, (_, i) => prompt(agent.client, sessionId, `q${i + 1}`));
    const full = await rpcError(prompt(agent.client, sessionId, "q17"), -32603);
    expect(full.data).toMatchObject({ code: "queue_full", queue: "prompts", limit: 16, sessionId });
    expect(full.message).toContain("16");
    await agent.client.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await p1).stopReason).toBe("cancelled");
    for (const p of queued) expect((await p).stopReason).toBe("cancelled");
    held.release();
  });

  test("16 queued prompts are all answered in order, and waiting adds no listener per prompt (no MaxListenersExceededWarning)", async () => {
    const { sessionId } = await agent.newSession();
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "one", gate: held.gate }, ...Array.from({ length: 16 }, (_, i) => ({ text: `answer ${i + 1}` })));
    const p1 = prompt(agent.client, sessionId, "p1");
    await server.request(base + 1);
    const queued = Array.from({ length: 16 }, (_, i) => prompt(agent.client, sessionId, `q${i + 1}`));
    // Requests are taken in order: once a later one is answered, all sixteen wait in the queue.
    await agent.client.agent.request(methods.agent.session.list, {});
    held.release();
    expect((await p1).stopReason).toBe("end_turn");
    for (const p of queued) expect((await p).stopReason).toBe("end_turn");
    expect(server.requests.slice(base).map((r) => conversation(r).at(-1))).toEqual(["user:p1", ...Array.from({ length: 16 }, (_, i) => `user:q${i + 1}`)]);
    // Twice more, so listeners left behind by earlier waits would add up past any limit.
    for (let round = 0; round < 2; round++) {
      const again = manualGate();
      server.push({ text: "held", gate: again.gate }, ...Array.from({ length: 16 }, () => ({ text: "more" })));
      const first = prompt(agent.client, sessionId, "first");
      await server.request(server.requests.length + 1);
      const more = Array.from({ length: 16 }, (_, i) => prompt(agent.client, sessionId, `r${i}`));
      await agent.client.agent.request(methods.agent.session.list, {});
      again.release();
      expect((await first).stopReason).toBe("end_turn");
      for (const p of more) expect((await p).stopReason).toBe("end_turn");
    }
    expect(agent.proc.stderr()).not.toContain("MaxListenersExceeded");
  });

  test("commands and templates in a queued prompt are resolved when its turn starts", async () => {
    const { sessionId } = await agent.newSession();
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "one", gate: held.gate }, { text: "greeted" });
    const p1 = prompt(agent.client, sessionId, "first prompt names the session");
    await server.request(base + 1);
    const renamed = prompt(agent.client, sessionId, "/name Renamed while queued");
    const greeted = prompt(agent.client, sessionId, "/greet Bob");
    held.release();
    expect((await p1).stopReason).toBe("end_turn");
    expect((await renamed).stopReason).toBe("end_turn");
    expect((await greeted).stopReason).toBe("end_turn");
    // The first prompt's title, then the queued /name: in the order the turns ran.
    const titles = agent.client.updates(sessionId).flatMap((u) => (u.sessionUpdate === "session_info_update" && u.title ? [u.title] : []));
    expect(titles).toEqual(["first prompt names the session", "Renamed while queued"]);
    expect(conversation(server.requests[base + 1]!).at(-1)).toBe("user:Say hello to Bob from the template.");
    expect(userChunks(agent.client.updates(sessionId)).at(-1)).toBe("Say hello to Bob from the template.");
  });

  test("end of input answers the running and the queued prompts cancelled; a prompt that never started is not stored", async () => {
    const own = makeSandbox();
    const model = await startFakeModelServer();
    useFakeModel(own, model);
    const other = await startAgent(runtime, own, { args: ["--approval-mode", "yolo"] });
    try {
      const { sessionId } = await other.newSession();
      const held = manualGate();
      model.push({ text: "never", gate: held.gate });
      const p1 = prompt(other.client, sessionId, "started");
      await model.request(1);
      const p2 = prompt(other.client, sessionId, "never started");
      // Requests are taken in order: once a later one is answered, the prompt waits in the queue.
      await other.client.agent.request(methods.agent.session.list, {});
      const exit = other.stop();
      expect((await p1).stopReason).toBe("cancelled");
      expect((await p2).stopReason).toBe("cancelled");
      expect(await exit).toBe(0);
      expect(journalUserTexts(journal(own.home, sessionId))).toEqual(["started"]);
      held.release();
    } finally {
      await other.kill();
      await model.close();
      own.cleanup();
    }
  });

  test("after kill -9 mid-turn, session/load replays the user messages in the order the model saw them", async () => {
    const own = makeSandbox();
    const model = await startFakeModelServer();
    useFakeModel(own, model);
    const before = await startAgent(runtime, own, { args: ["--approval-mode", "yolo"] });
    let after: RunningAgent | undefined;
    try {
      const { sessionId } = await before.newSession();
      const toolStep = manualGate();
      const secondStep = manualGate();
      model.push({ toolCalls: [{ id: "ls_1", name: "ls", input: { path: "." } }], gate: toolStep.gate }, { text: "never finished", gate: secondStep.gate });
      void prompt(before.client, sessionId, "p1").catch(() => undefined);
      await model.request(1);
      expect(await steer(before.client, sessionId, "s1")).toEqual({ outcome: "injected" });
      void prompt(before.client, sessionId, "queued, never started").catch(() => undefined);
      toolStep.release();
      // The model is asked with the steered message: the process dies right then.
      expect(conversation(await model.request(2)).at(-1)).toBe("user:s1");
      await before.kill();

      after = await startAgent(runtime, own, { args: ["--approval-mode", "yolo"] });
      await after.client.agent.request(methods.agent.session.load, { sessionId, cwd: own.project, mcpServers: [] });
      expect(userChunks(after.client.updates(sessionId))).toEqual(["p1", "s1"]);
      expect(journalUserTexts(journal(own.home, sessionId))).toEqual(["p1", "s1"]);
      toolStep.release();
      secondStep.release();
    } finally {
      await before.kill();
      await after?.kill();
      await model.close();
      own.cleanup();
    }
  });
});
