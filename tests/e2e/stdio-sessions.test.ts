/**
 * Sessions that survive: stored by one process (on one runtime), listed,
 * loaded, resumed, forked and deleted by another (on another runtime),
 * including after `kill -9` in the middle of a turn.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { startAgent } from "../helpers/session-agent.ts";

const { methods } = acp;
/** The runtime that reopens what another one stored. */
const other = (runtime: (typeof RUNTIMES)[number]) => RUNTIMES[(RUNTIMES.indexOf(runtime) + 1) % RUNTIMES.length]!;

function sessionFiles(home: string): string[] {
  const root = join(home, "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((dir) => readdirSync(join(root, dir)).filter((f) => f.endsWith(".jsonl")).map((f) => join(root, dir, f)));
}

describe.each(RUNTIMES)("sessions created on %s", (runtime) => {
  test("round trip across a restart on another runtime: list, load with full replay, settings kept, conversation continues", async () => {
    const sandbox = makeSandbox();
    sandbox.write("project/hello.txt", "hello from disk\n");
    try {
      const first = await startAgent(runtime, sandbox, {
        script: [
          { thinking: "Reading it.", toolCalls: [{ id: "r1", name: "read", input: { path: "hello.txt" } }] },
          { text: "It says hello from disk." },
        ],
      });
      const { sessionId } = await first.newSession();
      expect((await first.prompt(sessionId, "What does hello.txt say?\nSecond line")).stopReason).toBe("end_turn");
      expect(first.client.updates(sessionId).find((u) => u.sessionUpdate === "session_info_update")).toMatchObject({ title: "What does hello.txt say?" });
      await first.client.agent.request(methods.agent.session.setMode, { sessionId, modeId: "write" });
      await first.client.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "thought_level", value: "low" });
      expect((await first.prompt(sessionId, "/name Reading hello")).stopReason).toBe("end_turn");
      expect(await first.stop()).toBe(0);

      const second = await startAgent(other(runtime), sandbox, { script: [{ text: "Still here." }] });
      const init = second.client.received.find((m) => (m.result as { agentCapabilities?: unknown })?.agentCapabilities) as { result: acp.InitializeResponse };
      expect(init.result.agentCapabilities?.loadSession).toBe(true);
      expect(init.result.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {}, delete: {} });

      const list = await second.client.agent.request(methods.agent.session.list, { cwd: sandbox.project });
      expect(list.sessions).toHaveLength(1);
      expect(list.sessions[0]).toMatchObject({ sessionId, cwd: sandbox.project, title: "Reading hello" });
      expect(Date.parse(list.sessions[0]!.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);

      const loaded = await second.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe("write");
      expect(loaded.configOptions?.find((o) => o.id === "thought_level")?.currentValue).toBe("low");
      const replay = second.client.updates(sessionId);
      const kinds = replay.map((u) => u.sessionUpdate);
      expect(kinds.slice(0, 5)).toEqual(["user_message_chunk", "agent_thought_chunk", "tool_call", "agent_message_chunk", "session_info_update"]);
      expect(replay[0]).toMatchObject({ content: { type: "text", text: "What does hello.txt say?\nSecond line" } });
      expect(replay[2]).toMatchObject({ toolCallId: "r1", title: "Read hello.txt", status: "completed" });
      expect(JSON.stringify(replay[2])).toContain("hello from disk");
      expect(agentText(replay)).toBe("It says hello from disk.");
      // Every replayed update precedes the load response; the commands follow it.
      await waitFor(() => second.client.updates(sessionId).some((u) => u.sessionUpdate === "available_commands_update"), 5000, "commands");

      const before = second.client.updates(sessionId).length;
      expect((await second.prompt(sessionId, "/session")).stopReason).toBe("end_turn");
      expect(agentText(second.client.updates(sessionId).slice(before))).toContain("Messages in context: 4 (1 user, 2 assistant, 1 tool results)");
      expect((await second.prompt(sessionId, "and now?")).stopReason).toBe("end_turn");
      expect(await second.stop()).toBe(0);
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);

  test("always-allow answers are stored with the session and hold after a reload", async () => {
    const sandbox = makeSandbox();
    try {
      const asked: string[] = [];
      const allowAlways = (params: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
        asked.push(params.toolCall.toolCallId);
        return { outcome: { outcome: "selected", optionId: params.options.find((o) => o.kind === "allow_always")!.optionId } };
      };
      const first = await startAgent(runtime, sandbox, {
        script: [{ toolCalls: [{ id: "w1", name: "write", input: { path: "a.txt", content: "one" } }] }, { text: "ok" }],
        onPermission: allowAlways,
      });
      const { sessionId } = await first.newSession();
      await first.prompt(sessionId, "write a");
      expect(asked).toEqual(["w1"]);
      await first.stop();

      const second = await startAgent(other(runtime), sandbox, {
        script: [{ toolCalls: [{ id: "w2", name: "write", input: { path: "b.txt", content: "two" } }] }, { text: "ok" }],
        onPermission: allowAlways,
      });
      await second.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      await second.prompt(sessionId, "write b");
      expect(asked).toEqual(["w1"]);
      expect(readFileSync(join(sandbox.project, "b.txt"), "utf8")).toBe("two");
      await second.stop();
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);

  test("kill -9 in the middle of a turn: the next process loads everything up to the last completed step", async () => {
    const sandbox = makeSandbox();
    sandbox.write("project/data.txt", "important data\n");
    try {
      const first = await startAgent(runtime, sandbox, {
        script: [
          { toolCalls: [{ id: "r1", name: "read", input: { path: "data.txt" } }] },
          { text: "a long answer that is still streaming when the process dies", delayMs: 100 },
        ],
      });
      const { sessionId } = await first.newSession();
      void first.prompt(sessionId, "read data.txt and explain").catch(() => undefined);
      await waitFor(() => first.client.updates(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"), 10_000, "the second call to stream");
      await first.kill();

      const second = await startAgent(other(runtime), sandbox, { script: [{ text: "Recovered." }] });
      await second.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      const replay = second.client.updates(sessionId);
      expect(replay[0]).toMatchObject({ sessionUpdate: "user_message_chunk", content: { text: "read data.txt and explain" } });
      const call = replay.find((u) => u.sessionUpdate === "tool_call");
      expect(call).toMatchObject({ toolCallId: "r1", status: "completed" });
      expect(JSON.stringify(call)).toContain("important data");
      expect((await second.prompt(sessionId, "go on")).stopReason).toBe("end_turn");
      expect(agentText(second.client.updates(sessionId))).toContain("Recovered.");
      await second.stop();
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);

  test("list pages past 120 sessions with a cwd filter; a bad cursor is refused", async () => {
    const sandbox = makeSandbox();
    const elsewhere = sandbox.write("elsewhere/.keep", "").replace(/\/\.keep$/, "");
    try {
      const agent = await startAgent(runtime, sandbox, { args: ["--model", "faux/echo"] });
      const created = new Set<string>();
      for (let i = 0; i < 125; i += 1) created.add((await agent.newSession()).sessionId);
      for (let i = 0; i < 5; i += 1) await agent.newSession(elsewhere);
      const seen: string[] = [];
      let cursor: string | undefined;
      const pages: number[] = [];
      do {
        const page: acp.ListSessionsResponse = await agent.client.agent.request(methods.agent.session.list, { cwd: sandbox.project, ...(cursor ? { cursor } : {}) });
        pages.push(page.sessions.length);
        for (const s of page.sessions) {
          expect(s.cwd).toBe(sandbox.project);
          seen.push(s.sessionId);
        }
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(pages).toEqual([50, 50, 25]);
      expect(new Set(seen)).toEqual(created);
      expect((await agent.client.agent.request(methods.agent.session.list, { cwd: elsewhere })).sessions).toHaveLength(5);
      expect((await agent.client.agent.request(methods.agent.session.list, {})).sessions).toHaveLength(50);
      await rpcError(agent.client.agent.request(methods.agent.session.list, { cursor: "not-a-cursor" }), -32602);
      await agent.stop();
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);

  test("fork copies the history; delete is idempotent and the session is gone from list and load", async () => {
    const sandbox = makeSandbox();
    try {
      const agent = await startAgent(runtime, sandbox, { script: [{ text: "original answer" }, { text: "only in the fork" }] });
      const { sessionId } = await agent.newSession();
      await agent.prompt(sessionId, "first question");
      const fork = await agent.client.agent.request<{ sessionId: string }>("session/fork", { sessionId, cwd: sandbox.project });
      expect(fork.sessionId).not.toBe(sessionId);
      await agent.prompt(fork.sessionId, "a fork-only question");
      await agent.client.agent.request(methods.agent.session.close, { sessionId });
      await agent.client.agent.request(methods.agent.session.close, { sessionId: fork.sessionId });

      const reader = await startAgent(other(runtime), sandbox, { args: ["--model", "faux/echo"] });
      await reader.client.agent.request(methods.agent.session.load, { sessionId: fork.sessionId, cwd: sandbox.project, mcpServers: [] });
      const forkText = agentText(reader.client.updates(fork.sessionId));
      expect(forkText).toContain("original answer");
      expect(forkText).toContain("only in the fork");
      await reader.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      expect(agentText(reader.client.updates(sessionId))).toBe("original answer");
      const titles = (await reader.client.agent.request(methods.agent.session.list, {})).sessions.map((s) => s.title);
      expect(titles).toContain("Fork of first question");

      await reader.client.agent.request(methods.agent.session.delete, { sessionId });
      await reader.client.agent.request(methods.agent.session.delete, { sessionId });
      expect((await reader.client.agent.request(methods.agent.session.list, {})).sessions.map((s) => s.sessionId)).toEqual([fork.sessionId]);
      const gone = await rpcError(reader.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] }), -32002);
      expect(gone.data).toEqual({ sessionId });
      await rpcError(reader.client.agent.request(methods.agent.session.resume, { sessionId, cwd: sandbox.project }), -32002);
      await reader.stop();
      await agent.stop();
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);

  test("resume restores without replay; damaged and foreign files give clear outcomes", async () => {
    const sandbox = makeSandbox();
    try {
      const first = await startAgent(runtime, sandbox, { script: [{ text: "stored answer" }] });
      const { sessionId } = await first.newSession();
      await first.prompt(sessionId, "remember this");
      // Another process may not open a session this one holds.
      const rival = await startAgent(other(runtime), sandbox, { args: ["--model", "faux/echo"] });
      const locked = await rpcError(rival.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] }), -32603);
      expect(locked.message).toContain("open in another acp-edge process");
      await first.stop();

      const [file] = sessionFiles(sandbox.home);
      appendFileSync(file!, '{"type":"message", this line is damaged\n');
      appendFileSync(file!, '{"type":"title","title":"After the damage"}\n');
      await rival.client.agent.request(methods.agent.session.resume, { sessionId, cwd: sandbox.project });
      expect(rival.client.updates(sessionId).some((u) => u.sessionUpdate === "user_message_chunk")).toBe(false);
      await waitFor(() => agentText(rival.client.updates(sessionId)).includes("not valid JSON"), 5000, "a notice about the damaged line");
      const before = rival.client.updates(sessionId).length;
      await rival.prompt(sessionId, "/session");
      expect(agentText(rival.client.updates(sessionId).slice(before))).toContain('"After the damage"');
      await rival.client.agent.request(methods.agent.session.close, { sessionId });

      // A file from a newer format version is refused, not misread.
      const lines = readFileSync(file!, "utf8").split("\n");
      lines[0] = lines[0]!.replace('"version":1', '"version":99');
      writeFileSync(file!, lines.join("\n"));
      const newer = await rpcError(rival.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] }), -32603);
      expect(newer.message).toContain("newer");

      // A cwd that no longer exists.
      const gone = sandbox.write("gone/.keep", "").replace(/\/\.keep$/, "");
      const { sessionId: orphan } = await rival.newSession(gone);
      await rival.client.agent.request(methods.agent.session.close, { sessionId: orphan });
      rmSync(gone, { recursive: true });
      const missing = await rpcError(rival.client.agent.request(methods.agent.session.load, { sessionId: orphan, cwd: gone, mcpServers: [] }), -32602);
      expect(missing.message).toContain("does not exist");
      await rival.stop();
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);
});
