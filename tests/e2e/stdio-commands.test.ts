/**
 * Slash commands, prompt templates, model and thinking switches that survive
 * a restart, and compaction against a small context window — with real HTTP
 * to the fake model server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { startAgent } from "../helpers/session-agent.ts";

const { methods } = acp;

describe.each(RUNTIMES)("commands and compaction on %s", (runtime) => {
  let server: FakeModelServer;
  let sandbox: Sandbox;

  beforeAll(async () => {
    server = await startFakeModelServer();
    sandbox = makeSandbox();
    writeFileSync(
      join(sandbox.home, "settings.json"),
      JSON.stringify({
        defaultModel: "local/small",
        maxRetries: 0,
        compaction: { reserveTokens: 500, keepRecentTokens: 300 },
        providers: {
          local: {
            api: "openai-compatible",
            baseUrl: `${server.url}/v1`,
            models: [
              // Answers of ~6,250 tokens against a 12,000-token budget (the window less its reserve):
              // the second prompt fits beside the system prompt and tool schemas (~3,500 with the
              // background, fetch and task tools) and the third compacts.
              { id: "small", contextWindow: 16000, reasoning: true },
              { id: "large", contextWindow: 100000, reasoning: false },
            ],
          },
        },
      }),
    );
    sandbox.write("home/prompts/review.md", "---\ndescription: Review a file\n---\nReview $1 with a focus on $2.\nEverything: $@\nAs typed: $ARGUMENTS\n");
    sandbox.write("project/.acp-edge/prompts/team/deploy.md", "Deploy to $1 please.");
  });
  afterAll(async () => {
    await server.close();
    sandbox.cleanup();
  });

  test("templates become commands and expand their arguments; built-ins answer without the model", async () => {
    const agent = await startAgent(runtime, sandbox, { args: [] });
    try {
      const { sessionId } = await agent.newSession();
      await waitFor(() => agent.client.updates(sessionId).some((u) => u.sessionUpdate === "available_commands_update"), 5000, "commands");
      const commands = agent.client.updates(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
      const names = commands?.sessionUpdate === "available_commands_update" ? commands.availableCommands.map((c) => c.name) : [];
      expect(names).toEqual(["compact", "name", "session", "help", "undo", "rewind", "review", "team:deploy"]);

      const calls = server.requests.length;
      await agent.prompt(sessionId, "/help");
      await agent.prompt(sessionId, "/name   Release   prep ");
      expect(server.requests.length).toBe(calls);
      expect(agentText(agent.client.updates(sessionId))).toContain("/review <arguments> — Review a file");
      expect(agent.client.updates(sessionId).findLast((u) => u.sessionUpdate === "session_info_update")).toMatchObject({ title: "Release prep" });

      server.push({ text: "Reviewed." });
      await agent.prompt(sessionId, '/review src/app.ts "error handling" extra');
      const sent = JSON.stringify(server.requests.at(-1)!.body);
      expect(sent).toContain("Review src/app.ts with a focus on error handling.");
      expect(sent).toContain("Everything: src/app.ts error handling extra");
      expect(sent).toContain('As typed: src/app.ts \\"error handling\\" extra');
      server.push({ text: "Deploying." });
      await agent.prompt(sessionId, "/team:deploy staging");
      expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("Deploy to staging please.");
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("model and thinking switches apply to the next request and survive a restart", async () => {
    const agent = await startAgent(runtime, sandbox, { args: [] });
    const { sessionId, configOptions } = await agent.newSession();
    expect(configOptions?.find((o) => o.id === "model")?.currentValue).toBe("local/small");
    await agent.client.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "thought_level", value: "high" });
    server.push({ text: "thinking hard" });
    await agent.prompt(sessionId, "one");
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('"reasoning_effort":"high"');
    const switched = await agent.client.agent.request(methods.agent.session.setConfigOption, { sessionId, configId: "model", value: "local/large" });
    // A model without reasoning offers only "off".
    expect(switched.configOptions.find((o) => o.id === "thought_level")).toMatchObject({ currentValue: "off", options: [{ value: "off" }] });
    server.push({ text: "on the large model" });
    await agent.prompt(sessionId, "two");
    expect(server.requests.at(-1)!.body.model).toBe("large");
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("thinking hard");
    await agent.stop();

    const again = await startAgent(runtime, sandbox, { args: [] });
    try {
      const loaded = await again.client.agent.request(methods.agent.session.resume, { sessionId, cwd: sandbox.project });
      expect(loaded.configOptions?.find((o) => o.id === "model")?.currentValue).toBe("local/large");
      server.push({ text: "still large" });
      await again.prompt(sessionId, "three");
      expect(server.requests.at(-1)!.body.model).toBe("large");
    } finally {
      await again.stop();
    }
  }, 60_000);

  test("a small context window triggers compaction; the summary replaces old messages for the model, not in the store", async () => {
    const agent = await startAgent(runtime, sandbox, { args: [] });
    try {
      const { sessionId } = await agent.newSession();
      const long = (n: number) => `${"word ".repeat(5000)} (message ${n})`;
      server.push({ text: long(1) }, { text: long(2) });
      await agent.prompt(sessionId, "first question about the parser");
      await agent.prompt(sessionId, "second question");
      const before = server.requests.length;
      server.push({ text: "SUMMARY: the user asked two questions about the parser." }, { text: "answer after compaction" });
      const result = await agent.prompt(sessionId, "third question");
      expect(result.stopReason).toBe("end_turn");
      const [summaryCall, nextCall] = server.requests.slice(before).map((r) => JSON.stringify(r.body));
      expect(summaryCall).toContain("You summarise a coding session");
      expect(summaryCall).toContain("first question about the parser");
      expect(nextCall).toContain("compacted into the following summary");
      expect(nextCall).toContain("SUMMARY: the user asked two questions");
      expect(nextCall).not.toContain("(message 1)");
      expect(nextCall).toContain("third question");
      expect(agentText(agent.client.updates(sessionId))).toContain("summarised");

      // /compact on demand, with instructions.
      server.push({ text: "SHORTER SUMMARY" });
      await agent.prompt(sessionId, "/compact keep only decisions");
      expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("keep only decisions");
      await agent.client.agent.request(methods.agent.session.close, { sessionId });

      // The store keeps the full history: a reload replays every message.
      await agent.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      const replayed = agentText(agent.client.updates(sessionId).slice(-20));
      expect(replayed).toContain("(message 1)");
    } finally {
      await agent.stop();
    }
  }, 60_000);

  test("clients that advertise session.compaction get compaction updates instead of a notice", async () => {
    const agent = await startAgent(runtime, sandbox, { args: [], capabilities: { session: { compaction: {} } } as acp.ClientCapabilities });
    try {
      const { sessionId } = await agent.newSession();
      server.push({ text: "a".repeat(25_000) }, { text: "b".repeat(25_000) });
      await agent.prompt(sessionId, "one");
      await agent.prompt(sessionId, "two");
      server.push({ text: "CAP SUMMARY" }, { text: "done" });
      await agent.prompt(sessionId, "three");
      const updates = agent.client.updates(sessionId);
      const statuses = updates.filter((u) => u.sessionUpdate === "compaction_update").map((u) => (u.sessionUpdate === "compaction_update" ? u.status : ""));
      expect(statuses).toEqual(["in_progress", "completed"]);
      expect(updates.some((u) => u.sessionUpdate === "compaction_summary_chunk")).toBe(true);
      expect(agentText(updates)).not.toContain("summarised");
    } finally {
      await agent.stop();
    }
  }, 60_000);
});
