/**
 * Web search on every runtime, against fake providers over real HTTP. Anthropic's requests offer its server
 * search tool (bounded by `max_uses`); a search it streams reaches the client as a completed `search` tool call
 * with its results, then the answer with its sources; later requests carry the search blocks back unchanged
 * (the encrypted results byte for byte, the earlier turns byte-stable), `session/load` shows the search again,
 * and the cost counts the search. OpenAI Responses requests offer `web_search`, and its `web_search_call`
 * reaches the client and goes back as an item. `webSearch: false` or a deny rule removes the tool.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../helpers/fake-model-server.ts";
import type { FakeProviderRun } from "../helpers/fake-provider.ts";

const methods = acp.methods;

interface Running extends FakeProviderRun {
  prompt(text: string): Promise<acp.PromptResponse>;
}
const running: Running[] = [];
const extraProcesses: Array<{ proc: AgentProcess; client: TestClient }> = [];

afterEach(async () => {
  for (const extra of extraProcesses.splice(0)) {
    extra.client.close();
    extra.proc.child.kill("SIGKILL");
  }
  for (const r of running.splice(0)) {
    r.client.close();
    r.proc.child.kill("SIGKILL");
    await r.server.close();
    r.sandbox.cleanup();
  }
});

type Provider = "anthropic" | "openai";

function agentArgs(provider: Provider): string[] {
  return ["agent", "stdio", "--model", provider === "anthropic" ? "anthropic/claude-sonnet-4-5" : "openai/gpt-5", "--approval-mode", "yolo"];
}

function agentEnv(provider: Provider, sandbox: Sandbox, server: FakeModelServer): Record<string, string> {
  const keys =
    provider === "anthropic"
      ? { ANTHROPIC_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: "sk-ant-search-test" }
      : { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-openai-search-test" };
  return { ACP_EDGE_HOME: sandbox.home, ...keys };
}

async function start(runtime: RuntimeName, provider: Provider, turns: ScriptedTurn[], settings: object = {}, projectSettings?: object): Promise<Running> {
  const sandbox = makeSandbox();
  if (projectSettings) sandbox.write("project/.acp-edge/settings.json", JSON.stringify(projectSettings));
  const server = await startFakeModelServer(turns);
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, ...settings }));
  const proc = spawnAgent(runtime, agentArgs(provider), { cwd: sandbox.project, env: agentEnv(provider, sandbox, server) });
  const client = connectClient(proc);
  const r: Running = {
    sandbox,
    server,
    proc,
    client,
    sessionId: "",
    prompt: (text) => client.agent.request(methods.agent.session.prompt, { sessionId: r.sessionId, prompt: [{ type: "text", text }] }),
  };
  running.push(r);
  await initialize(client);
  ({ sessionId: r.sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
  return r;
}

const ENCRYPTED = "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2MSDP35ZzZ5ZTlhODEyYzA=+/\u00e9";
const SEARCH = {
  id: "srvtoolu_fake_search_1",
  query: "acp-edge v5 migration guide",
  results: [
    { url: "https://docs.example.com/migrate-v5", title: "Migrating to v5", encryptedContent: ENCRYPTED, pageAge: "April 2, 2026" },
    { url: "https://blog.example.org/v5", title: "What changed in v5", encryptedContent: `${ENCRYPTED}-2` },
  ],
};
const ANSWER: ScriptedTurn = {
  searches: [SEARCH],
  text: "The guide says to rename the config file.",
  citations: [{ url: "https://docs.example.com/migrate-v5", title: "Migrating to v5" }],
};

function searchCalls(updates: acp.SessionUpdate[]) {
  return updates.filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }> => u.sessionUpdate === "tool_call" && u.kind === "search");
}

function updateText(update: acp.SessionUpdate): string {
  if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") return "";
  return (update.content ?? []).map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("");
}

for (const runtime of RUNTIMES) {
  describe(`${runtime}: web search`, () => {
    test("Anthropic: the server search tool is offered, streams as a search call, goes back unchanged and is replayed", async () => {
      const r = await start(runtime, "anthropic", [ANSWER, { text: "second" }, { text: "third" }]);
      expect((await r.prompt("find the migration guide for v5")).stopReason).toBe("end_turn");
      const first = await r.server.request(1);
      expect(first.body.tools).toContainEqual({ type: "web_search_20250305", name: "web_search", max_uses: 5 });

      const updates = r.client.updates(r.sessionId);
      const calls = searchCalls(updates);
      expect(calls.map((c) => [c.toolCallId, c.title])).toEqual([[SEARCH.id, SEARCH.query]]);
      const done = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === SEARCH.id && u.status === "completed");
      expect(done).toBeDefined();
      expect(updateText(done!)).toContain("Migrating to v5");
      expect(updateText(done!)).toContain("https://blog.example.org/v5");
      // The search comes before the answer, and the answer keeps its source.
      const callAt = updates.indexOf(calls[0]!);
      const textAt = updates.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
      expect(callAt).toBeLessThan(textAt);
      const shown = agentText(updates);
      expect(shown).toContain("The guide says to rename the config file.");
      expect(shown).toContain("[Migrating to v5](https://docs.example.com/migrate-v5)");
      // The search is billed: $0.01 on top of the tokens.
      const cost = updates.filter((u) => u.sessionUpdate === "usage_update").at(-1);
      expect(cost?.sessionUpdate === "usage_update" ? cost.cost?.amount : 0).toBeGreaterThanOrEqual(0.01);

      await r.prompt("thanks");
      await r.prompt("and again");
      const second = await r.server.request(2);
      const third = await r.server.request(3);
      const reply = second.body.messages[1];
      expect(reply.role).toBe("assistant");
      const blocks = reply.content as Array<Record<string, any>>;
      expect(blocks.map((b) => b.type)).toEqual(["server_tool_use", "web_search_tool_result", "text"]);
      expect(blocks[0]).toMatchObject({ id: SEARCH.id, name: "web_search", input: { query: SEARCH.query } });
      expect(blocks[1]!.tool_use_id).toBe(SEARCH.id);
      expect(blocks[1]!.content.map((c: any) => c.encrypted_content)).toEqual([ENCRYPTED, `${ENCRYPTED}-2`]);
      expect(blocks[1]!.content[0].page_age).toBe("April 2, 2026");
      // The sources list is shown to the user, never sent to the model.
      expect(blocks[2]!.text).toBe(ANSWER.text);
      // The cached prefix: tools, system and the earlier reply are the same bytes in every later request.
      expect(JSON.stringify(third.body.tools)).toBe(JSON.stringify(first.body.tools));
      expect(JSON.stringify(third.body.system)).toBe(JSON.stringify(first.body.system));
      expect(JSON.stringify(third.body.messages[1])).toBe(JSON.stringify(reply));

      // A new process loading the session shows the search again, with its results (the first one has ended).
      const exited = new Promise((resolve) => r.proc.child.once("exit", resolve));
      r.client.close();
      r.proc.child.kill("SIGKILL");
      await exited;
      const proc = spawnAgent(runtime, agentArgs("anthropic"), { cwd: r.sandbox.project, env: agentEnv("anthropic", r.sandbox, r.server) });
      const client = connectClient(proc);
      extraProcesses.push({ proc, client });
      await initialize(client);
      await client.agent.request(methods.agent.session.load, { sessionId: r.sessionId, cwd: r.sandbox.project, mcpServers: [] });
      const replayed = client.updates(r.sessionId);
      const again = searchCalls(replayed);
      expect(again.map((c) => [c.toolCallId, c.title, c.status])).toEqual([[SEARCH.id, SEARCH.query, "completed"]]);
      expect(updateText(again[0]!)).toContain("https://docs.example.com/migrate-v5");
      expect(agentText(replayed)).toContain("[Migrating to v5](https://docs.example.com/migrate-v5)");
    }, 60_000);

    test("Anthropic: a failed search is shown failed and goes back as the provider's error", async () => {
      const r = await start(runtime, "anthropic", [{ searches: [{ id: "srvtoolu_fail", query: "too many", error: "max_uses_exceeded" }], text: "I could not search." }, { text: "ok" }]);
      await r.prompt("search");
      const failed = r.client.updates(r.sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "srvtoolu_fail");
      expect(failed?.sessionUpdate === "tool_call_update" ? failed.status : undefined).toBe("failed");
      expect(updateText(failed!)).toContain("max_uses_exceeded");
      await r.prompt("again");
      const blocks = (await r.server.request(2)).body.messages[1].content as Array<Record<string, any>>;
      expect(blocks[1]).toMatchObject({ type: "web_search_tool_result", tool_use_id: "srvtoolu_fail", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } });
    }, 60_000);

    test("Anthropic: a paused turn of searches goes on in the same prompt, the paused reply sent back as it is", async () => {
      const paused: ScriptedTurn = { searches: [{ id: "srvtoolu_paused", query: "long research", results: [{ url: "https://example.com/a", title: "A" }] }], stop: "pause_turn" };
      const r = await start(runtime, "anthropic", [paused, { text: "finished the research" }]);
      expect((await r.prompt("research this")).stopReason).toBe("end_turn");
      expect(r.server.requests).toHaveLength(2);
      const messages = (await r.server.request(2)).body.messages as Array<{ role: string; content: Array<Record<string, any>> }>;
      // The paused reply is the last message: the provider resumes it.
      expect(messages.at(-1)!.role).toBe("assistant");
      expect(messages.at(-1)!.content.map((b) => b.type)).toEqual(["server_tool_use", "web_search_tool_result"]);
      expect(agentText(r.client.updates(r.sessionId))).toContain("finished the research");
    }, 60_000);

    test("Anthropic: a search cut off before its result is shown failed, and is not sent back half", async () => {
      const r = await start(runtime, "anthropic", [{ searches: [{ id: "srvtoolu_cut", query: "cut short" }], cutAfterSearchCall: true }, { text: "fine" }]);
      await expect(r.prompt("search")).rejects.toBeDefined();
      const updates = r.client.updates(r.sessionId);
      expect(searchCalls(updates).map((c) => c.toolCallId)).toEqual(["srvtoolu_cut"]);
      const last = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "srvtoolu_cut").at(-1);
      expect(last?.sessionUpdate === "tool_call_update" ? last.status : undefined).toBe("failed");
      expect((await r.prompt("again")).stopReason).toBe("end_turn");
      const sent = JSON.stringify((await r.server.request(2)).body.messages);
      expect(sent).not.toContain("srvtoolu_cut");
    }, 60_000);

    test("OpenAI Responses: web_search is offered and its web_search_call reaches the client", async () => {
      const search = { id: "ws_fake_1", query: "is there a newer release", results: [{ url: "https://example.com/releases", title: "Releases" }] };
      const r = await start(runtime, "openai", [{ searches: [search], text: "Yes, 5.1.", citations: [{ url: "https://example.com/releases", title: "Releases" }] }, { text: "ok" }]);
      await r.prompt("is there a newer release?");
      const first = await r.server.request(1);
      expect((first.body.tools as Array<{ type: string }>).some((t) => t.type === "web_search")).toBe(true);
      const updates = r.client.updates(r.sessionId);
      expect(searchCalls(updates).map((c) => [c.toolCallId, c.title])).toEqual([["ws_fake_1", search.query]]);
      const done = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "ws_fake_1" && u.status === "completed");
      expect(updateText(done!)).toContain("https://example.com/releases");
      expect(agentText(updates)).toContain("[Releases](https://example.com/releases)");
      await r.prompt("thanks");
      const input = (await r.server.request(2)).body.input as Array<Record<string, any>>;
      expect(input).toContainEqual(expect.objectContaining({ type: "web_search_call", id: "ws_fake_1", action: expect.objectContaining({ type: "search", query: search.query }) }));
      // The search is billed per call.
      const cost = r.client.updates(r.sessionId).filter((u) => u.sessionUpdate === "usage_update").at(0);
      expect(cost?.sessionUpdate === "usage_update" ? cost.cost?.amount : 0).toBeGreaterThanOrEqual(0.01);
      // At the minimal thought level OpenAI refuses the search tool: it is not offered.
      await r.client.agent.request(methods.agent.session.setConfigOption, { sessionId: r.sessionId, configId: "thought_level", value: "minimal" });
      r.server.push({ text: "quick" });
      await r.prompt("quick one");
      expect(((await r.server.request(3)).body.tools as Array<{ type: string }>).some((t) => t.type === "web_search")).toBe(false);
    }, 60_000);

    test("webSearch: false (the user's, or a project's), or a deny rule for web_search, offers no search tool; other settings keep it", async () => {
      // Each case: user settings, project settings, and the `max_uses` of the search tools the request offers.
      const cases: Array<[object, object | undefined, number[]]> = [
        [{ webSearch: false }, undefined, []],
        [{ permissionRules: [{ action: "deny", tools: ["web_search"] }] }, undefined, []],
        [{ webSearch: { maxUses: 2 } }, undefined, [2]],
        [{ permissionRules: [{ action: "deny", tools: ["bash"] }] }, undefined, [5]],
        // A project may turn search off, and nothing else about it.
        [{}, { webSearch: false }, []],
        [{ webSearch: false }, { webSearch: { maxUses: 3 } }, []],
        [{}, { webSearch: { maxUses: 3 } }, [5]],
      ];
      for (const [settings, project, offered] of cases) {
        const r = await start(runtime, "anthropic", [{ text: "no search" }], settings, project);
        await r.prompt("hello");
        const tools = (await r.server.request(1)).body.tools as Array<{ name: string; type?: string; max_uses?: number }>;
        expect(tools.filter((t) => t.name === "web_search").map((t) => t.max_uses)).toEqual(offered);
      }
    }, 60_000);
  });
}
