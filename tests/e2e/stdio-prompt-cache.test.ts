/**
 * Prompt caching as the provider meets it, on every runtime. A scripted
 * session (two prompts of five reads of ~6 KB files, a ~10 KB instructions
 * file) against a fake Anthropic endpoint that bills each request by a
 * simulation of Anthropic's cache: the bill is at most 0.3× the same bodies
 * uncached, no request marks more than 4 breakpoints, tools and system prompt
 * never change, each request re-sends the one before it byte for byte, and the
 * cost the editor is told prices reads and writes at the model's cache prices.
 * `promptCache` off sends no breakpoint, `long` asks for the 1-hour cache; the
 * OpenAI Responses API gets one `prompt_cache_key` per session.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { billedInput, requestBlocks } from "../helpers/anthropic-cache-sim.ts";
import { filler } from "../helpers/filler-text.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../helpers/fake-model-server.ts";
import type { FakeProviderRun } from "../helpers/fake-provider.ts";

const methods = acp.methods;
/** claude-sonnet-4-5's prices, USD per million tokens. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

type Running = FakeProviderRun;
const running: Running[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) {
    r.client.close();
    r.proc.child.kill("SIGKILL");
    await r.server.close();
    r.sandbox.cleanup();
  }
});

/** One prompt's replies: five reads, then an answer. */
function readingTurns(prompt: number): ScriptedTurn[] {
  const reads = [1, 2, 3, 4, 5].map((i) => ({ toolCalls: [{ id: `call_${prompt}_${i}`, name: "read", input: { path: `src/file-${prompt}-${i}.txt` } }] }));
  return [...reads, { text: `Read all five files of part ${prompt}.` }];
}

async function start(
  runtime: RuntimeName,
  args: string[],
  env: (server: FakeModelServer) => Record<string, string>,
  settings: object | ((server: FakeModelServer) => object) = {},
): Promise<Running> {
  const sandbox = makeSandbox();
  sandbox.write("project/AGENTS.md", filler("instructions", 10_000));
  for (const prompt of [1, 2]) for (const i of [1, 2, 3, 4, 5]) sandbox.write(`project/src/file-${prompt}-${i}.txt`, filler(`file ${prompt}.${i}`, 6_000));
  const server = await startFakeModelServer([], { simulateCache: true });
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, ...(typeof settings === "function" ? settings(server) : settings) }));
  const proc = spawnAgent(runtime, ["agent", "stdio", ...args, "--approval-mode", "yolo"], { cwd: sandbox.project, env: { ACP_EDGE_HOME: sandbox.home, ...env(server) } });
  const client = connectClient(proc);
  const r: Running = { sandbox, server, proc, client, sessionId: "" };
  running.push(r);
  await initialize(client);
  ({ sessionId: r.sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
  return r;
}

const anthropic = (runtime: RuntimeName, settings?: object) =>
  start(runtime, ["--model", "anthropic/claude-sonnet-4-5"], (server) => ({ ANTHROPIC_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: "sk-ant-cache-test" }), settings);

function prompt(r: Running, text: string): Promise<acp.PromptResponse> {
  return r.client.agent.request(methods.agent.session.prompt, { sessionId: r.sessionId, prompt: [{ type: "text", text }] });
}

/** Runs the scripted session: two prompts of five reads each. */
async function scriptedSession(r: Running): Promise<acp.PromptResponse[]> {
  const answers: acp.PromptResponse[] = [];
  for (const n of [1, 2]) {
    r.server.push(...readingTurns(n));
    answers.push(await prompt(r, `Read the five files of part ${n}.`));
  }
  expect(answers.map((a) => a.stopReason)).toEqual(["end_turn", "end_turn"]);
  expect(r.server.requests).toHaveLength(12);
  return answers;
}

function breakpointsOf(body: unknown): number {
  return (JSON.stringify(body).match(/"cache_control":/g) ?? []).length;
}

for (const runtime of RUNTIMES) {
  describe(`${runtime}: prompt caching`, () => {
    test("Anthropic: billed input is at most 0.3x uncached, with a byte-stable prefix and at most 4 breakpoints", async () => {
      const r = await anthropic(runtime);
      const answers = await scriptedSession(r);
      const requests = r.server.requests;

      let billed = 0;
      let uncached = 0;
      for (const request of requests) {
        const cache = request.cache!;
        expect(cache.breakpoints).toBeGreaterThanOrEqual(3);
        expect(breakpointsOf(request.body)).toBe(cache.breakpoints);
        expect(cache.breakpoints).toBeLessThanOrEqual(4);
        expect(cache.longTtl).toBe(false);
        billed += billedInput(cache);
        uncached += cache.input + cache.cacheRead + cache.cacheWrite;
      }
      expect(billed / uncached).toBeLessThanOrEqual(0.3);

      // Tools and system prompt are the same bytes in every request; each request re-sends the one before it whole.
      const first = requests[0]!.body;
      for (let i = 1; i < requests.length; i += 1) {
        const body = requests[i]!.body;
        expect(JSON.stringify(body.tools)).toBe(JSON.stringify(first.tools));
        expect(JSON.stringify(body.system)).toBe(JSON.stringify(first.system));
        const before = requestBlocks(requests[i - 1]!.body).map((b) => b.text);
        const now = requestBlocks(body).map((b) => b.text);
        expect(now.slice(0, before.length)).toEqual(before);
        expect(now.length).toBeGreaterThan(before.length);
      }

      // The answers count what the provider reported, reads and writes apart.
      const turnSums = [requests.slice(0, 6), requests.slice(6)].map((rs) => ({
        input: rs.reduce((n, q) => n + q.cache!.input, 0),
        cacheRead: rs.reduce((n, q) => n + q.cache!.cacheRead, 0),
        cacheWrite: rs.reduce((n, q) => n + q.cache!.cacheWrite, 0),
      }));
      answers.forEach((answer, i) => {
        expect(answer.usage).toMatchObject({
          inputTokens: turnSums[i]!.input,
          cachedReadTokens: turnSums[i]!.cacheRead,
          cachedWriteTokens: turnSums[i]!.cacheWrite,
          outputTokens: 30,
        });
      });
      expect(turnSums[1]!.cacheRead).toBeGreaterThan(turnSums[1]!.cacheWrite);

      // The session's cost prices reads and writes at the cache prices: less than the same tokens uncached.
      const all = requests.map((q) => q.cache!);
      const tokens = (pick: (u: (typeof all)[number]) => number) => all.reduce((n, u) => n + pick(u), 0);
      const output = 5 * requests.length;
      const expected = (tokens((u) => u.input) * PRICE.input + tokens((u) => u.cacheRead) * PRICE.cacheRead + tokens((u) => u.cacheWrite) * PRICE.cacheWrite + output * PRICE.output) / 1e6;
      const plain = (tokens((u) => u.input + u.cacheRead + u.cacheWrite) * PRICE.input + output * PRICE.output) / 1e6;
      const costs = r.client.updates(r.sessionId).filter((u) => u.sessionUpdate === "usage_update");
      const last = costs.at(-1) as { cost: { amount: number } };
      expect(last.cost.amount).toBeCloseTo(expected, 5);
      expect(last.cost.amount).toBeLessThan(plain * 0.5);

      // session/status and /session tell the share of input the cache served.
      const read = tokens((u) => u.cacheRead);
      const input = tokens((u) => u.input + u.cacheRead + u.cacheWrite);
      const status = await (r.client.agent.request as (m: string, p: unknown) => Promise<any>)("session/status", { sessionId: r.sessionId });
      expect(status).toEqual({
        status: "open",
        usage: {
          inputTokens: tokens((u) => u.input),
          outputTokens: output,
          cachedReadTokens: read,
          cachedWriteTokens: tokens((u) => u.cacheWrite),
          cachedInputShare: Math.round((read / input) * 1000) / 1000,
          cost: expect.closeTo(expected, 5),
          requests: 12,
        },
        // In yolo mode commands are never sandboxed.
        sandbox: { setting: "auto", available: true, commands: "not sandboxed" },
      });
      expect(status.usage.cachedInputShare).toBeGreaterThan(0.7);
      const before = r.client.updates(r.sessionId).length;
      await prompt(r, "/session");
      const shown = agentText(r.client.updates(r.sessionId).slice(before));
      expect(shown).toContain(`Input from the cache: ${((read / input) * 100).toFixed(1)}% of `);

      // A compaction summary goes the same way, but its conversation is sent once: only its system prompt is marked.
      r.server.push({ text: "The summary of the reads." });
      expect((await prompt(r, "/compact")).stopReason).toBe("end_turn");
      const summary = r.server.requests.at(-1)!;
      expect(r.server.requests).toHaveLength(13);
      expect(breakpointsOf(summary.body)).toBe(1);
      expect(JSON.stringify(summary.body.system)).toContain('"cache_control":{"type":"ephemeral"}');
      expect(JSON.stringify(summary.body.messages)).not.toContain("cache_control");
    });

    test("Anthropic: a subagent's requests carry breakpoints too: at most 4, one on its system prompt and one on its tools", async () => {
      const r = await anthropic(runtime);
      r.server.push(
        { toolCalls: [{ id: "call_task", name: "task", input: { description: "Read a file", prompt: "Read src/file-1-1.txt and say what it holds." } }] },
        { toolCalls: [{ id: "call_sub_read", name: "read", input: { path: "src/file-1-1.txt" } }] },
        { text: "It holds numbered lines about a fox." },
        { text: "The subagent read it." },
      );
      expect((await prompt(r, "Delegate a read.")).stopReason).toBe("end_turn");
      expect(r.server.requests).toHaveLength(4);
      const subagent = r.server.requests.filter((q) => JSON.stringify(q.body.system).includes("You are a subagent"));
      expect(subagent).toHaveLength(2);
      for (const request of subagent) {
        expect(breakpointsOf(request.body)).toBeGreaterThanOrEqual(3);
        expect(breakpointsOf(request.body)).toBeLessThanOrEqual(4);
        expect(breakpointsOf(request.body.system)).toBe(1);
        expect(breakpointsOf(request.body.tools)).toBe(1);
      }
      // The subagent's second request re-sends its first whole, so its cache serves it.
      expect(requestBlocks(subagent[1]!.body).map((b) => b.text).slice(0, requestBlocks(subagent[0]!.body).length)).toEqual(requestBlocks(subagent[0]!.body).map((b) => b.text));
    });

    test("promptCache off marks no breakpoint; long asks for the 1-hour cache on each", async () => {
      const off = await anthropic(runtime, { promptCache: "off" });
      off.server.push(...readingTurns(1));
      expect((await prompt(off, "Read part 1.")).stopReason).toBe("end_turn");
      for (const request of off.server.requests) {
        expect(breakpointsOf(request.body)).toBe(0);
        expect(request.cache).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
      }

      const long = await anthropic(runtime, { promptCache: "long" });
      long.server.push(...readingTurns(1));
      const answer = await prompt(long, "Read part 1.");
      expect(answer.usage?.cachedReadTokens).toBeGreaterThan(0);
      for (const request of long.server.requests) {
        const controls = JSON.stringify(request.body).match(/"cache_control":\{[^}]*\}/g) ?? [];
        expect(controls.length).toBeGreaterThanOrEqual(3);
        expect(controls.length).toBeLessThanOrEqual(4);
        for (const control of controls) expect(control).toBe('"cache_control":{"type":"ephemeral","ttl":"1h"}');
      }
      // 1-hour writes cost twice the input price, and the cost says so.
      const sum = (pick: (u: NonNullable<(typeof long.server.requests)[number]["cache"]>) => number) => long.server.requests.reduce((n, q) => n + pick(q.cache!), 0);
      const written = sum((u) => u.cacheWrite);
      expect(written).toBeGreaterThan(0);
      const expected = (sum((u) => u.input) * PRICE.input + sum((u) => u.cacheRead) * PRICE.cacheRead + written * PRICE.input * 2 + 5 * long.server.requests.length * PRICE.output) / 1e6;
      const last = long.client.updates(long.sessionId).filter((u) => u.sessionUpdate === "usage_update").at(-1) as { cost: { amount: number } };
      expect(last.cost.amount).toBeCloseTo(expected, 5);
    });

    test("a promptCache the agent does not know is refused by name, and nothing is sent", async () => {
      const sandbox = makeSandbox();
      const server = await startFakeModelServer();
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ promptCache: "forever" }));
      const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"], {
        cwd: sandbox.project,
        env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: `${server.url}/v1`, ANTHROPIC_API_KEY: "sk-ant-cache-test" },
      });
      const client = connectClient(proc);
      running.push({ sandbox, server, proc, client, sessionId: "" });
      // The agent either stops at startup or refuses the session: either way it says which setting is wrong.
      const opening = initialize(client).then(() => client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
      const refused = await Promise.race([opening.then(() => "opened", (error: unknown) => JSON.stringify(error)), proc.exited.then(() => "exited")]);
      expect(refused).not.toBe("opened");
      const said = refused + proc.stderr();
      expect(said).toContain("promptCache");
      expect(server.requests).toHaveLength(0);
    });

    test("OpenAI Responses: one prompt_cache_key for all of a session's requests, cached tokens counted", async () => {
      const r = await start(runtime, ["--model", "openai/gpt-5"], (server) => ({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-openai-cache-test" }));
      for (const n of [1, 2]) {
        r.server.push(
          { toolCalls: [{ id: `call_${n}`, name: "read", input: { path: `src/file-${n}-1.txt` } }], usage: { input: 400, output: 10, cacheRead: 2000 } },
          { text: "Done.", usage: { input: 100, output: 5, cacheRead: 4000 } },
        );
        const answer = await prompt(r, `Read part ${n}.`);
        expect(answer.usage).toMatchObject({ inputTokens: 500, cachedReadTokens: 6000, outputTokens: 15 });
      }
      const keys = r.server.requests.map((q) => q.body.prompt_cache_key);
      expect(keys).toHaveLength(4);
      expect(new Set(keys)).toEqual(new Set([r.sessionId]));
      // gpt-5: input 1.25, cached input 0.125, output 10 per million.
      const costs = r.client.updates(r.sessionId).filter((u) => u.sessionUpdate === "usage_update");
      const last = costs.at(-1) as { cost: { amount: number } };
      expect(last.cost.amount).toBeCloseTo((1000 * 1.25 + 12_000 * 0.125 + 30 * 10) / 1e6, 6);
    });

    test("OpenAI-compatible endpoints get neither breakpoints nor a cache key, whatever promptCache says", async () => {
      const r = await start(runtime, ["--model", "local/qwen3"], () => ({ LOCAL_KEY: "sk-local-cache-test" }), (server) => ({
        promptCache: "long",
        providers: { local: { api: "openai-compatible", baseUrl: `${server.url}/v1`, apiKeyEnv: "LOCAL_KEY", models: [{ id: "qwen3", contextWindow: 32768 }] } },
      }));
      r.server.push({ toolCalls: [{ id: "call_1", name: "read", input: { path: "src/file-1-1.txt" } }] }, { text: "Done." });
      expect((await prompt(r, "Read one file.")).stopReason).toBe("end_turn");
      expect(r.server.requests).toHaveLength(2);
      for (const request of r.server.requests) {
        expect(request.path).toBe("/v1/chat/completions");
        const text = JSON.stringify(request.body);
        expect(text).not.toContain("cache_control");
        expect(text).not.toContain("prompt_cache");
        expect(text).not.toContain(r.sessionId);
      }
    });
  });
}
