/**
 * The unstable session surface over stdio on each runtime, against the fake
 * model server: `session/set_title`, `session/archive` / `unarchive` with
 * `session/list`'s archive filter, `session/status`, `PromptResponse.usage`,
 * and `session/set_model` with `models` as a view of the `model` config option.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { manualGate, startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { useFakeProvider } from "../helpers/fake-provider.ts";
import { startAgent, type RunningAgent } from "../helpers/session-agent.ts";
import { Prng } from "../fuzz/transport-prng.ts";
import { randomString } from "../fuzz/transport-json-values.ts";

const { methods } = acp;
const KEY = "sk-test-surface-0b7e51";

/** A request by name: the unstable methods are not in the SDK's stable types. */
const call = (agent: RunningAgent, method: string, params: Record<string, unknown>) =>
  (agent.client.agent.request as (m: string, p: unknown) => Promise<any>)(method, params);

const list = async (agent: RunningAgent, params: Record<string, unknown> = {}) =>
  (await call(agent, methods.agent.session.list, params)) as { sessions: Array<{ sessionId: string; title: string | null; archived?: boolean }> };

describe.each(RUNTIMES)("the session surface on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: FakeModelServer;

  beforeAll(async () => {
    sandbox = makeSandbox();
    server = await startFakeModelServer();
    useFakeProvider(sandbox.home, server, {
      keyEnv: "LOCAL_KEY",
      models: [
        { id: "small", name: "Small" },
        { id: "large", name: "Large", contextWindow: 65536 },
      ],
    });
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  const start = (options: Parameters<typeof startAgent>[2] = {}) => startAgent(runtime, sandbox, { args: ["--approval-mode", "yolo"], env: { LOCAL_KEY: KEY }, ...options });

  /** A session made by an agent that has stopped since: stored, open nowhere. */
  async function storedSession(): Promise<string> {
    const first = await start();
    const { sessionId } = await first.newSession();
    await first.stop();
    return sessionId;
  }

  test("initialize advertises title, archive and status beside list", async () => {
    const agent = await start();
    try {
      const init = (agent.client.received.find((m) => (m.result as { agentCapabilities?: unknown })?.agentCapabilities)?.result ?? {}) as {
        agentCapabilities: { sessionCapabilities: Record<string, unknown> };
      };
      expect(init.agentCapabilities.sessionCapabilities).toMatchObject({ list: {}, title: {}, archive: {}, status: {} });
    } finally {
      await agent.stop();
    }
  });

  test("set_title: stored, normalized, told with session_info_update, never replaced by the first prompt's title; bad titles refused", async () => {
    const agent = await start();
    try {
      const { sessionId } = await agent.newSession();
      const answer = await call(agent, "session/set_title", { sessionId, title: "  Release\n\tnotes\u0007 for v2  " });
      expect(answer).toEqual({ title: "Release notes for v2" });
      expect(agent.client.updates(sessionId).findLast((u) => u.sessionUpdate === "session_info_update")).toMatchObject({ title: "Release notes for v2" });
      server.push({ text: "ok" });
      await agent.prompt(sessionId, "a first prompt that would make a title");
      expect(agent.client.updates(sessionId).filter((u) => u.sessionUpdate === "session_info_update").map((u) => (u as { title?: string }).title)).toEqual([
        "Release notes for v2",
      ]);
      expect((await list(agent)).sessions.find((s) => s.sessionId === sessionId)?.title).toBe("Release notes for v2");

      for (const title of ["", "   \n\t ", "\u0000\u0001"]) {
        const error = await rpcError(call(agent, "session/set_title", { sessionId, title }), -32602);
        expect(error.message).toContain("title is empty");
      }
      await rpcError(call(agent, "session/set_title", { sessionId, title: null }), -32602);
      await rpcError(call(agent, "session/set_title", { sessionId }), -32602);
      await rpcError(call(agent, "session/set_title", { sessionId: 7, title: "x" }), -32602);
      await rpcError(call(agent, "session/set_title", { sessionId, title: "x".repeat(70_000) }), -32602);
      const unknown = await rpcError(call(agent, "session/set_title", { sessionId: "sess_nope", title: "x" }), -32002);
      expect(unknown.data).toEqual({ sessionId: "sess_nope" });

      // A title names one session: another session may not take it.
      const { sessionId: other } = await agent.newSession();
      const taken = await rpcError(call(agent, "session/set_title", { sessionId: other, title: "  Release notes for v2 " }), -32602);
      expect(taken.message).toContain('another session is already titled "Release notes for v2"');
      expect(taken.data).toMatchObject({ code: "title_taken" });
      // Its own title again is no conflict.
      expect(await call(agent, "session/set_title", { sessionId, title: "Release notes for v2" })).toEqual({ title: "Release notes for v2" });
      const long = await call(agent, "session/set_title", { sessionId: other, title: `${"é".repeat(150)} ${"x".repeat(150)}` });
      expect(Array.from(long.title as string)).toHaveLength(200);
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("set_title on a session that is only stored: written to its journal, replayed by load, kept over the next prompt", async () => {
    const sessionId = await storedSession();
    const agent = await start();
    try {
      expect(await call(agent, "session/status", { sessionId })).toEqual({ status: "saved" });
      expect(await call(agent, "session/set_title", { sessionId, title: "Named while closed" })).toEqual({ title: "Named while closed" });
      // Renaming did not open it.
      expect(await call(agent, "session/status", { sessionId })).toEqual({ status: "saved" });
      expect((await list(agent)).sessions.find((s) => s.sessionId === sessionId)?.title).toBe("Named while closed");
      await agent.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      expect(agent.client.updates(sessionId).findLast((u) => u.sessionUpdate === "session_info_update")).toMatchObject({ title: "Named while closed" });
      server.push({ text: "ok" });
      await agent.prompt(sessionId, "this prompt must not rename it");
      expect((await list(agent)).sessions.find((s) => s.sessionId === sessionId)?.title).toBe("Named while closed");
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("archive closes the session (its running turn answered cancelled), hides it from the default list; the filter, unarchive and status", async () => {
    const agent = await start();
    try {
      const { sessionId } = await agent.newSession();
      const { sessionId: kept } = await agent.newSession();
      server.push({ toolCalls: [{ id: "slow", name: "bash", input: { command: "sleep 30" } }] });
      const prompt = agent.prompt(sessionId, "run something slow");
      await waitFor(() => agent.client.updates(sessionId).some((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress"), 20_000, "the command to run");
      // An open session also tells its model calls' tokens so far (one call, the fake's default 10 in, 5 out, nothing cached).
      expect(await call(agent, "session/status", { sessionId })).toEqual({
        status: "open",
        usage: expect.objectContaining({ inputTokens: 10, outputTokens: 5, cachedReadTokens: 0, cachedWriteTokens: 0, cachedInputShare: 0, requests: 1 }),
        // In yolo mode commands are never sandboxed.
        sandbox: { setting: "auto", available: true, commands: "not sandboxed" },
      });

      expect(await call(agent, "session/archive", { sessionId })).toEqual({});
      expect((await prompt).stopReason).toBe("cancelled");
      expect(await call(agent, "session/status", { sessionId })).toEqual({ status: "saved" });
      // Closed as session/close would close it: this client must load it again.
      await rpcError(agent.prompt(sessionId, "still there?"), -32002);
      expect(await call(agent, "session/archive", { sessionId })).toEqual({});

      // Only this test's two sessions (others of the same home are listed too).
      const ids = async (archived?: unknown) =>
        (await list(agent, archived === undefined ? {} : { archived })).sessions.filter((s) => s.sessionId === sessionId || s.sessionId === kept).map((s) => `${s.sessionId}:${s.archived}`);
      expect(await ids()).toEqual([`${kept}:false`]);
      expect(await ids(null)).toEqual([`${kept}:false`]);
      expect(await ids("exclude")).toEqual([`${kept}:false`]);
      expect((await ids("include")).sort()).toEqual([`${kept}:false`, `${sessionId}:true`].sort());
      expect(await ids("only")).toEqual([`${sessionId}:true`]);
      for (const bad of ["_custom", "all", "", "EXCLUDE", 3, true]) await rpcError(list(agent, { archived: bad }), -32602);
      expect(await ids("only")).toEqual([`${sessionId}:true`]);

      // An archived session can still be loaded (archiving keeps its history); loading does not unarchive it.
      await agent.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      expect(await call(agent, "session/status", { sessionId })).toEqual({ status: "open", usage: expect.objectContaining({ cachedReadTokens: 0 }), sandbox: { setting: "auto", available: true, commands: "not sandboxed" } });
      expect(await ids("only")).toEqual([`${sessionId}:true`]);

      expect(await call(agent, "session/unarchive", { sessionId })).toEqual({});
      expect(await call(agent, "session/unarchive", { sessionId })).toEqual({});
      expect((await ids()).sort()).toEqual([`${kept}:false`, `${sessionId}:false`].sort());

      for (const method of ["session/archive", "session/unarchive", "session/status"]) {
        const error = await rpcError(call(agent, method, { sessionId: "sess_nope" }), -32002);
        expect(error.data).toEqual({ sessionId: "sess_nope" });
        await rpcError(call(agent, method, {}), -32602);
        await rpcError(call(agent, method, { sessionId: ["x"] }), -32602);
      }
      // A hostile id is neither echoed whole nor a path.
      const hostile = await rpcError(call(agent, "session/archive", { sessionId: `../../${"x".repeat(500)}` }), -32002);
      expect(hostile.message.length).toBeLessThan(300);
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("set_title racing archive or close while a turn runs: renamed (stored in the journal) every time, never an internal error", async () => {
    const agent = await start();
    try {
      for (let round = 0; round < 20; round++) {
        const { sessionId } = await agent.newSession();
        const held = manualGate();
        const base = server.requests.length;
        server.push({ text: "held", gate: held.gate });
        const turn = agent.prompt(sessionId, "hold on");
        await server.request(base + 1);
        const title = `race ${runtime} ${round}`;
        // Sent together, rename first: the close lands while the rename is under way (or before it starts);
        // either way the rename ends in the journal.
        const renamed = call(agent, "session/set_title", { sessionId, title });
        const closing = call(agent, round % 2 ? "session/archive" : "session/close", { sessionId });
        expect(await closing).toEqual({});
        held.release();
        expect((await turn).stopReason).toBe("cancelled");
        expect(await renamed).toEqual({ title });
        const listed = (await list(agent, { archived: "include" })).sessions.find((s) => s.sessionId === sessionId);
        expect(listed?.title).toBe(title);
      }
    } finally {
      await agent.stop();
    }
  }, 120_000);

  test("status has no side effects: a stored session is not opened, locked or attached", async () => {
    const sessionId = await storedSession();
    const agent = await start();
    try {
      expect(await call(agent, "session/status", { sessionId })).toEqual({ status: "saved" });
      const folder = readdirSync(join(sandbox.home, "sessions")).map((d) => join(sandbox.home, "sessions", d)).find((d) => existsSync(join(d, `${sessionId}.jsonl`)))!;
      expect(existsSync(join(folder, `${sessionId}.jsonl.lock`))).toBe(false);
      await rpcError(agent.prompt(sessionId, "not attached"), -32002);
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("the prompt's answer carries the turn's token counts; usage_update keeps the running total; a command has none", async () => {
    const agent = await start();
    try {
      const { sessionId } = await agent.newSession();
      server.push(
        { toolCalls: [{ id: "u1", name: "ls", input: { path: "." } }], usage: { input: 120, output: 30, cacheRead: 40 } },
        { text: "done", usage: { input: 200, output: 12 } },
      );
      const first = (await agent.prompt(sessionId, "count")) as { stopReason: string; usage?: Record<string, number> };
      // Chat completions report no cache writes; each kind is counted once and the total is their sum.
      expect(first.usage).toEqual({ inputTokens: 320, outputTokens: 42, cachedReadTokens: 40, cachedWriteTokens: 0, totalTokens: 402 });
      server.push({ text: "again", usage: { input: 7, output: 3 } });
      const second = (await agent.prompt(sessionId, "count again")) as { usage?: Record<string, number> };
      // This turn's own counts, not the session's.
      expect(second.usage).toEqual({ inputTokens: 7, outputTokens: 3, cachedReadTokens: 0, cachedWriteTokens: 0, totalTokens: 10 });
      const updates = agent.client.updates(sessionId).filter((u) => u.sessionUpdate === "usage_update");
      expect(updates.length).toBe(3);
      expect(updates.at(-1)).toMatchObject({ used: 10, size: 32768 });
      const command = (await agent.prompt(sessionId, "/session")) as { usage?: unknown };
      expect(command.usage).toBeUndefined();
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("models is the model config option seen the old way: set_model and set_config_option change both, told with config_option_update", async () => {
    const agent = await start();
    try {
      const created = (await agent.newSession()) as acp.NewSessionResponse & { models?: { currentModelId: string; availableModels: Array<{ modelId: string; name: string }> } };
      const sessionId = created.sessionId;
      const option = () => created.configOptions?.find((o) => o.id === "model") as { currentValue: string; options: Array<{ value: string; name: string }> };
      expect(created.models?.currentModelId).toBe("local/small");
      expect(created.models?.currentModelId).toBe(option().currentValue);
      expect(created.models?.availableModels.map((m) => [m.modelId, m.name])).toEqual(option().options.map((o) => [o.value, o.name]));

      expect(await call(agent, "session/set_model", { sessionId, modelId: "local/large" })).toEqual({});
      const told = agent.client.updates(sessionId).findLast((u) => u.sessionUpdate === "config_option_update") as { configOptions: Array<{ id: string; currentValue: string }> };
      expect(told.configOptions.find((o) => o.id === "model")?.currentValue).toBe("local/large");
      server.push({ text: "from large" });
      await agent.prompt(sessionId, "which model?");
      expect(server.requests.at(-1)!.body.model).toBe("large");

      const bad = await rpcError(call(agent, "session/set_model", { sessionId, modelId: "local/missing" }), -32602);
      expect(bad.message).toContain("not available");
      await rpcError(call(agent, "session/set_model", { sessionId }), -32602);
      await rpcError(call(agent, "session/set_model", { sessionId: "sess_nope", modelId: "local/small" }), -32002);

      await agent.client.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "local/small" });
      const resumed = (await agent.client.agent.request(methods.agent.session.resume, { sessionId, cwd: sandbox.project })) as { models?: { currentModelId: string } };
      expect(resumed.models?.currentModelId).toBe("local/small");
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("a seeded run of hostile params for the new methods: each answered once with a result or -32602/-32002, titles stored clean, the agent still works", async () => {
    const agent = await start();
    try {
      const { sessionId } = await agent.newSession();
      const rng = new Prng(Number(process.env.FUZZ_SEED ?? 20261202));
      const value = (): unknown =>
        rng.pick<() => unknown>([
          () => randomString(rng, rng.range(0, 300)),
          () => "x".repeat(rng.range(1, 80_000)),
          () => rng.range(-5, 5),
          () => null,
          () => rng.chance(0.5),
          () => [randomString(rng, 3)],
          () => ({ nested: randomString(rng, 5) }),
          () => `sess_${randomString(rng, 8)}`,
          () => sessionId,
        ])();
      const names = ["session/set_title", "session/archive", "session/unarchive", "session/status", "session/set_model", "session/list"];
      const fields = ["sessionId", "title", "modelId", "archived", "cwd", "cursor", "_meta", "extra"];
      for (let i = 0; i < 300; i++) {
        const method = rng.pick(names);
        const params: Record<string, unknown> = { sessionId: rng.chance(0.7) ? sessionId : value() };
        if (method === "session/set_title") params.title = rng.chance(0.6) ? randomString(rng, rng.range(0, 400)) : value();
        if (method === "session/set_model") params.modelId = rng.chance(0.5) ? rng.pick(["local/small", "local/large"]) : value();
        for (let n = rng.range(0, 3); n > 0; n--) params[rng.pick(fields)] = value();
        if (rng.chance(0.1)) delete params.sessionId;
        let outcome: string;
        try {
          const result = await call(agent, method, params);
          outcome = "ok";
          if (method === "session/set_title") {
            expect(result.title).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
            expect(Array.from(result.title as string).length).toBeLessThanOrEqual(200);
          }
        } catch (error) {
          outcome = String((error as { code?: number }).code);
        }
        expect({ method, outcome }).toMatchObject({ outcome: expect.stringMatching(/^(ok|-32602|-32002)$/) });
      }
      // Whatever it went through, the session still answers (loaded again if the run archived it).
      if ((await call(agent, "session/status", { sessionId })).status !== "open") {
        await agent.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      }
      server.push({ text: "still here" });
      expect((await agent.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
      for (const s of (await list(agent, { archived: "include" })).sessions) expect(s.title ?? "").not.toMatch(/[\u0000-\u001f]/);
    } finally {
      await agent.stop();
    }
  }, 120_000);
});
