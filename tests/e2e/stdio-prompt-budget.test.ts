/**
 * The per-message budget over stdio, against the fake model server, on every
 * runtime: a small message naming a large project file hundreds or thousands
 * of times (as a prompt or a steering message) is refused -32602 at once,
 * with nothing read (the agent's peak memory barely moves) and nothing asked
 * of the model; the same file linked again is read once; content no provider
 * accepts is refused at the door; what the client is shown of a linked file is
 * the link; and the session goes on: a plain prompt after each refusal ends
 * `end_turn` with a conversation that holds none of what was refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError } from "../helpers/expect-error.ts";
import { manualGate, startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { peakMemory } from "../helpers/processes.ts";
import { conversation, prompt, useFakeModel } from "../helpers/queue-steer.ts";
import { startAgent, type RunningAgent } from "../helpers/session-agent.ts";

const { methods } = acp;
/** The model's window in the settings below: 200,000 tokens at 4 bytes a token. */
const BUDGET = 800_000;
const MiB = 1024 * 1024;

describe.each(RUNTIMES)("the per-message budget over stdio on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: FakeModelServer;
  let agent: RunningAgent;
  const link = (name: string): acp.ContentBlock => ({ type: "resource_link", uri: pathToFileURL(join(sandbox.project, name)).href, name });

  beforeAll(async () => {
    sandbox = makeSandbox();
    // Just under the 2 MiB a linked file may have, so only the budget stands between it and the model.
    sandbox.write("project/big.txt", "0123456789abcdef\n".repeat(Math.floor((2 * MiB - 1) / 17)));
    sandbox.write("project/part-a.txt", "a".repeat(300_000));
    sandbox.write("project/part-b.txt", "b".repeat(300_000));
    sandbox.write("project/part-c.txt", "c".repeat(300_000));
    server = await startFakeModelServer();
    useFakeModel(sandbox, server);
    agent = await startAgent(runtime, sandbox, { args: ["--model", "local/fake"] });
  });

  afterAll(async () => {
    await agent.kill();
    await server.close();
    sandbox.cleanup();
  });

  /** A plain prompt ends `end_turn`, and the model is asked with nothing but the conversation so far. */
  async function followUp(sessionId: string, text: string): Promise<string[]> {
    const base = server.requests.length;
    server.push({ text: "fine" });
    expect((await prompt(agent.client, sessionId, text)).stopReason).toBe("end_turn");
    expect(server.requests.length).toBe(base + 1);
    return conversation(server.requests[base]!);
  }

  test("a prompt naming a 2 MiB file 400 times is refused at once, nothing read, and the session goes on", async () => {
    const { sessionId } = await agent.newSession();
    const before = peakMemory(agent.proc.child.pid!);
    const requests = server.requests.length;
    const error = await rpcError(
      agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read" }, ...Array.from({ length: 400 }, () => link("big.txt"))] }),
      -32602,
    );
    expect(error.message).toContain("per-message budget of 800,000 bytes (781 KiB)");
    expect(error.data).toMatchObject({ code: "prompt_too_large", budget: BUDGET });
    // The same file counts once: what was asked is that file, the text and 399 short notes, not 400 copies.
    expect(error.data.requested).toBeGreaterThan(2 * MiB - 20);
    expect(error.data.requested).toBeLessThan(2 * MiB + 399 * 400);
    expect(server.requests.length).toBe(requests);
    expect(peakMemory(agent.proc.child.pid!) - before).toBeLessThan(300 * MiB);
    expect(await followUp(sessionId, "plain")).toEqual(["user:plain"]);
  });

  test("a steering message naming it 2,400 times is refused too, idle or with promptRequired", async () => {
    const { sessionId } = await agent.newSession();
    const flood = [{ type: "text", text: "steer" }, ...Array.from({ length: 2400 }, () => link("big.txt"))];
    for (const meta of [undefined, { steering: { idleBehavior: "promptRequired" } }]) {
      const error = await rpcError(agent.client.agent.request("_session/steering", { sessionId, prompt: flood, ...(meta ? { _meta: meta } : {}) }), -32602);
      expect(error.data).toMatchObject({ code: "prompt_too_large", budget: BUDGET });
    }
    expect(await followUp(sessionId, "after the steering")).toEqual(["user:after the steering"]);
  });

  test("links are looked at once each, at most 64 distinct ones; the notes that stand in for them count too", async () => {
    const { sessionId } = await agent.newSession();
    const missing = (i: number) => link(`missing-${i}.txt`);
    const tooMany = await rpcError(
      agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: Array.from({ length: 65 }, (_, i) => missing(i)) }),
      -32602,
    );
    expect(tooMany.data).toEqual({ code: "prompt_too_large", linkLimit: 64 });
    // 20,000 links to one missing file: one look, and notes past the budget.
    const notes = await rpcError(
      agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: Array.from({ length: 20_000 }, () => missing(0)) }),
      -32602,
    );
    expect(notes.data).toMatchObject({ code: "prompt_too_large", budget: BUDGET });
    expect(await followUp(sessionId, "fine")).toEqual(["user:fine"]);
  });

  test("distinct files add up: two fit the budget, three do not", async () => {
    const { sessionId } = await agent.newSession();
    const error = await rpcError(
      agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [link("part-a.txt"), link("part-b.txt"), link("part-c.txt")] }),
      -32602,
    );
    expect(error.data.requested).toBe(900_000);
    const base = server.requests.length;
    server.push({ text: "two read" });
    const answer = await agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "two" }, link("part-a.txt"), link("part-b.txt")] });
    expect(answer.stopReason).toBe("end_turn");
    const body = JSON.stringify(server.requests[base]!.body);
    expect(body).toContain("a".repeat(300_000));
    expect(body).toContain("b".repeat(300_000));
    expect(body.length).toBeLessThan(BUDGET);
  });

  test("a file linked many times is read once; the others say so; the client is shown the links", async () => {
    const { sessionId } = await agent.newSession();
    const base = server.requests.length;
    server.push({ text: "one copy" });
    const before = agent.client.updates(sessionId).length;
    // Started by steering on an idle session, the message is shown to its own client as well.
    const answer = await agent.client.agent.request("_session/steering", { sessionId, prompt: [{ type: "text", text: "once" }, ...Array.from({ length: 50 }, () => link("part-a.txt"))] });
    expect(answer).toEqual({ outcome: "startedNewTurn" });
    await server.request(base + 1);
    const body = JSON.stringify(server.requests[base]!.body);
    expect(body.split("a".repeat(1000)).length - 1).toBe(300);
    expect(body.split("the same file as linked above").length - 1).toBe(49);
    const update = (await followUpUpdates(sessionId, before)).filter((u) => u.sessionUpdate === "user_message_chunk");
    const links = update.filter((u) => u.sessionUpdate === "user_message_chunk" && u.content.type === "resource_link");
    expect(links.length).toBe(1);
    expect(JSON.stringify(update)).not.toContain("a".repeat(1000));

    // A replay shows the same: the link, not the file (closed here first, so another process may open it).
    await (agent.client.agent.request as (m: string, p: unknown) => Promise<unknown>)("session/close", { sessionId });
    const replayed = await startAgent(runtime, sandbox, { args: ["--model", "local/fake"] });
    try {
      await replayed.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      const chunks = replayed.client.updates(sessionId).filter((u) => u.sessionUpdate === "user_message_chunk");
      expect(chunks.filter((u) => u.sessionUpdate === "user_message_chunk" && u.content.type === "resource_link").length).toBe(1);
      expect(JSON.stringify(chunks)).not.toContain("a".repeat(1000));
    } finally {
      await replayed.kill();
    }
  });

  /** The updates since `before`, once the session's next plain prompt was answered (so every earlier update arrived). */
  async function followUpUpdates(sessionId: string, before: number): Promise<acp.SessionUpdate[]> {
    await followUp(sessionId, "next");
    return agent.client.updates(sessionId).slice(before);
  }

  test("a prompt the provider refuses leaves the conversation, in memory and in the journal: the next prompt and a reload never carry it", async () => {
    const { sessionId } = await agent.newSession();
    server.push({ text: "first answer" });
    expect((await prompt(agent.client, sessionId, "first")).stopReason).toBe("end_turn");
    server.push({ error: { status: 400, message: "this request is not acceptable" } });
    const failed = await rpcError(prompt(agent.client, sessionId, "refused by the provider"), -32603);
    expect(failed.data).toMatchObject({ code: "model_error", status: 400 });
    expect(await followUp(sessionId, "second")).toEqual(["user:first", "assistant:first answer", "user:second"]);

    // Reloaded in another process, the journal says the same.
    await (agent.client.agent.request as (m: string, p: unknown) => Promise<unknown>)("session/close", { sessionId });
    const reloaded = await startAgent(runtime, sandbox, { args: ["--model", "local/fake"] });
    try {
      await reloaded.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      const base = server.requests.length;
      server.push({ text: "third answer" });
      expect((await prompt(reloaded.client, sessionId, "third")).stopReason).toBe("end_turn");
      expect(conversation(server.requests[base]!)).toEqual(["user:first", "assistant:first answer", "user:second", "assistant:fine", "user:third"]);
    } finally {
      await reloaded.kill();
    }
  });

  test("image data that is not base64, or of a type providers do not take, is refused at the door", async () => {
    const { sessionId } = await agent.newSession();
    const bad: acp.ContentBlock[][] = [
      [{ type: "image", data: "not base64!!", mimeType: "image/png" }],
      [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/x-unknown" }],
      [{ type: "image", data: "iVBORw0KGgo", mimeType: "image/png" }],
      [{ type: "resource", resource: { uri: "file:///x.png", blob: "%%%%", mimeType: "image/png" } }],
    ];
    for (const blocks of bad) {
      await rpcError(agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: blocks }), -32602);
      await rpcError(agent.client.agent.request("_session/steering", { sessionId, prompt: blocks }), -32602);
    }
    expect(await followUp(sessionId, "still here")).toEqual(["user:still here"]);
  });
});

describe.each(RUNTIMES)("messages against a budget of 4,000,000 bytes (the queue bound, large images), over stdio on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: FakeModelServer;
  let agent: RunningAgent;

  beforeAll(async () => {
    sandbox = makeSandbox();
    // Two files that together just fit the budget of a model of a million tokens (4,000,000 bytes).
    sandbox.write("project/left.txt", "l".repeat(1_990_000));
    sandbox.write("project/right.txt", "r".repeat(1_990_000));
    server = await startFakeModelServer();
    useFakeModel(sandbox, server, { contextWindow: 1_000_000 });
    agent = await startAgent(runtime, sandbox, { args: ["--model", "local/fake"] });
  });

  afterAll(async () => {
    await agent.kill();
    await server.close();
    sandbox.cleanup();
  });

  test("a 12 MiB or 8 MiB image is refused prompt_too_large, as prompt or steering; valid base64 just under the budget reaches the model", async () => {
    const { sessionId } = await agent.newSession();
    const requests = server.requests.length;
    const image = (data: string): acp.ContentBlock[] => [{ type: "text", text: "look" }, { type: "image", data, mimeType: "image/png" }];
    for (const size of [12 * MiB, 8 * MiB]) {
      const valid = "QUFB".repeat(size / 4);
      // Over the budget whatever the data holds: valid, or not base64 at its very end.
      for (const data of [valid, `${valid.slice(0, -1)}!`]) {
        for (const method of [methods.agent.session.prompt, "_session/steering"]) {
          const error = await rpcError(agent.client.agent.request(method, { sessionId, prompt: image(data) }), -32602);
          expect(error.data).toMatchObject({ code: "prompt_too_large", budget: 4_000_000, requested: size + 4 });
        }
      }
    }
    expect(server.requests.length).toBe(requests);
    // Valid base64 of 3,999,992 characters and a short text: just under the budget, so it reaches the model whole.
    const fits = "QUFB".repeat((4_000_000 - 8) / 4);
    server.push({ text: "seen" });
    const answer = await agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: image(fits) });
    expect(answer.stopReason).toBe("end_turn");
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(`base64,${fits}"`);
  }, 120_000);

  test("eight prompts of 4 MB each wait behind a turn; a ninth is refused queue_full though its request is small", async () => {
    const { sessionId } = await agent.newSession();
    const links: acp.ContentBlock[] = ["left.txt", "right.txt"].map((name) => ({ type: "resource_link", uri: pathToFileURL(join(sandbox.project, name)).href, name }));
    const held = manualGate();
    const base = server.requests.length;
    server.push({ text: "one", gate: held.gate });
    const running = prompt(agent.client, sessionId, "hold on");
    await server.request(base + 1);
    // Nine at once (each is sized before it claims a place, so which one comes last is not known): one is refused.
    const sent = Array.from({ length: 9 }, (_, i) =>
      agent.client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `q${i}` }, ...links] }).then(
        (answer) => answer.stopReason as string,
        (error: { code?: number; data?: { code?: string } }) => `${error.code} ${error.data?.code}`,
      ),
    );
    const refused = await Promise.race(sent.map((answer) => answer.then((outcome) => (outcome.startsWith("-") ? outcome : new Promise<string>(() => {})))));
    expect(refused).toBe("-32603 queue_full");
    await agent.client.agent.notify(methods.agent.session.cancel, { sessionId });
    expect((await running).stopReason).toBe("cancelled");
    expect((await Promise.all(sent)).sort()).toEqual(["-32603 queue_full", ...Array.from({ length: 8 }, () => "cancelled")]);
    held.release();
  }, 60_000);
});
