/**
 * Prompt caching and cost on the clouds, on every runtime. Claude on Vertex
 * (two prompts of four reads) is billed by the simulation of Anthropic's cache (its body is Anthropic's):
 * at most 0.3x the uncached bill, at most 4 breakpoints, each request
 * re-sending the one before it byte for byte. Claude on Bedrock gets Converse
 * cache points at the same places (system prompt, newest message, the step
 * before's), the rest of the body byte-stable from step to step, and its
 * reported cache reads and writes priced at the cache prices. Gemini's cached
 * tokens are read from its usage and priced as cache reads.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, connectClient, initialize, type TestClient } from "../helpers/acp-client.ts";
import { billedInput, requestBlocks } from "../helpers/anthropic-cache-sim.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type RuntimeName } from "../helpers/agent-process.ts";
import { AWS_KEY_ID, AWS_REGION, AWS_SECRET, cloudAnswers, GEMINI_KEY, makeServiceAccount, type ServiceAccount } from "../helpers/cloud-fakes.ts";
import { filler } from "../helpers/filler-text.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../helpers/fake-model-server.ts";

const { methods } = acp;
/** Claude Sonnet 4.5's prices on both clouds, USD per million tokens. */
const CLAUDE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const NO_WAY_OUT = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1", AWS_EC2_METADATA_DISABLED: "true" };

/** A started session: the fake it talks to, its client and id. */
interface Running {
  server: FakeModelServer;
  client: TestClient;
  sessionId: string;
}
/** How to stop what each test started, run after it. */
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function start(runtime: RuntimeName, model: string, env: (server: FakeModelServer, account: ServiceAccount) => Record<string, string>, settings: (server: FakeModelServer) => object = () => ({})): Promise<Running> {
  const sandbox = makeSandbox();
  sandbox.write("project/AGENTS.md", filler("instructions", 10_000));
  for (const i of [1, 2, 3, 4]) sandbox.write(`project/src/file-${i}.txt`, filler(`file ${i}`, 6_000));
  let hook: ReturnType<typeof cloudAnswers> | undefined;
  const server = await startFakeModelServer([], { simulateCache: true, answer: (...args) => hook?.answer(...args) });
  const account = makeServiceAccount(`${server.url}/token`);
  hook = cloudAnswers({ publicKey: account.publicKey, tokenUri: `${server.url}/token` });
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, ...settings(server) }));
  const proc = spawnAgent(runtime, ["agent", "stdio", "--model", model, "--approval-mode", "yolo"], {
    cwd: sandbox.project,
    env: { ACP_EDGE_HOME: sandbox.home, ...NO_WAY_OUT, ...env(server, account) },
  });
  const client = connectClient(proc);
  stops.push(async () => {
    client.close();
    proc.child.kill("SIGKILL");
    await server.close();
    account.cleanup();
    sandbox.cleanup();
  });
  const r: Running = { server, client, sessionId: "" };
  await initialize(client);
  ({ sessionId: r.sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
  return r;
}

/** Four reads, then an answer; `usage` scripts what the provider reports for each request. */
function readingTurns(usage?: (step: number) => ScriptedTurn["usage"]): ScriptedTurn[] {
  const reads: ScriptedTurn[] = [1, 2, 3, 4].map((i) => ({ toolCalls: [{ id: `call_${i}`, name: "read", input: { path: `src/file-${i}.txt` } }] }));
  return [...reads, { text: "Read all four files." }].map((turn, step) => ({ ...turn, ...(usage ? { usage: usage(step) } : {}) }));
}

async function readFour(r: Running, usage?: (step: number) => ScriptedTurn["usage"]): Promise<number> {
  r.server.push(...readingTurns(usage));
  const { stopReason } = await r.client.agent.request(methods.agent.session.prompt, { sessionId: r.sessionId, prompt: [{ type: "text", text: "Read the four files." }] });
  expect(stopReason).toBe("end_turn");
  const last = r.client.updates(r.sessionId).filter((u) => u.sessionUpdate === "usage_update").at(-1) as { cost: { amount: number } };
  return last.cost.amount;
}

/** A Converse body's content with its cache points taken out: what must stay the same bytes from step to step. */
function withoutCachePoints(body: any): { system: unknown[]; messages: unknown[]; tools: unknown } {
  const strip = (blocks: unknown[]) => blocks.filter((b) => !(typeof b === "object" && b !== null && "cachePoint" in b));
  return {
    system: strip(body.system ?? []),
    messages: (body.messages ?? []).map((m: { role: string; content: unknown[] }) => ({ role: m.role, content: strip(m.content) })),
    tools: body.toolConfig?.tools,
  };
}

for (const runtime of RUNTIMES) {
  describe(`${runtime}: prompt caching on the clouds`, () => {
    test("Claude on Vertex: billed input is at most 0.3x uncached, with a byte-stable prefix and at most 4 breakpoints", async () => {
      const r = await start(
        runtime,
        "gcp/claude-sonnet-4-5@20250929",
        (_server, account) => ({ GOOGLE_APPLICATION_CREDENTIALS: account.file }),
        (server) => ({ providers: { gcp: { api: "vertex", baseUrl: `${server.url}/v1/projects/e2e-project/locations/us-east5` } } }),
      );
      await readFour(r);
      const cost = await readFour(r);
      const requests = r.server.requests.filter((q) => q.cache);
      expect(requests).toHaveLength(10);
      let billed = 0;
      let uncached = 0;
      for (const request of requests) {
        const cache = request.cache!;
        expect(cache.breakpoints).toBeGreaterThanOrEqual(3);
        expect(cache.breakpoints).toBeLessThanOrEqual(4);
        billed += billedInput(cache);
        uncached += cache.input + cache.cacheRead + cache.cacheWrite;
      }
      expect(billed / uncached).toBeLessThanOrEqual(0.3);
      for (let i = 1; i < requests.length; i += 1) {
        const before = requestBlocks(requests[i - 1]!.body).map((b) => b.text);
        const now = requestBlocks(requests[i]!.body).map((b) => b.text);
        expect(now.slice(0, before.length)).toEqual(before);
      }
      const all = requests.map((q) => q.cache!);
      const sum = (pick: (u: (typeof all)[number]) => number) => all.reduce((n, u) => n + pick(u), 0);
      const expected = (sum((u) => u.input) * CLAUDE.input + sum((u) => u.cacheRead) * CLAUDE.cacheRead + sum((u) => u.cacheWrite) * CLAUDE.cacheWrite + 5 * requests.length * CLAUDE.output) / 1e6;
      expect(cost).toBeCloseTo(expected, 5);
    });

    test("Claude on Bedrock: cache points at the breakpoints, the body byte-stable between them, reads and writes priced", async () => {
      const r = await start(runtime, "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", (server) => ({
        AWS_ACCESS_KEY_ID: AWS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: AWS_SECRET,
        AWS_REGION,
        AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url,
      }));
      const usage = (step: number) => ({ input: 50, output: 10, cacheRead: step * 4000, cacheWrite: 1500 });
      const cost = await readFour(r, usage);
      const requests = r.server.requests.filter((q) => q.path.endsWith("/converse-stream"));
      expect(requests).toHaveLength(5);
      for (const [i, request] of requests.entries()) {
        const points = (JSON.stringify(request.body).match(/"cachePoint":/g) ?? []).length;
        expect(points).toBeGreaterThanOrEqual(i === 0 ? 2 : 3);
        expect(points).toBeLessThanOrEqual(4);
        // The system prompt ends with one: tools and instructions are read from the cache by every step.
        expect(request.body.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
      }
      for (let i = 1; i < requests.length; i += 1) {
        const before = withoutCachePoints(requests[i - 1]!.body);
        const now = withoutCachePoints(requests[i]!.body);
        expect(JSON.stringify(now.system)).toBe(JSON.stringify(before.system));
        expect(JSON.stringify(now.tools)).toBe(JSON.stringify(before.tools));
        expect(JSON.stringify(now.messages.slice(0, before.messages.length))).toBe(JSON.stringify(before.messages));
      }
      const steps = [0, 1, 2, 3, 4].map(usage);
      const sum = (pick: (u: (typeof steps)[number]) => number) => steps.reduce((n, u) => n + pick(u), 0);
      const expected = (sum((u) => u.input) * CLAUDE.input + sum((u) => u.cacheRead) * CLAUDE.cacheRead + sum((u) => u.cacheWrite) * CLAUDE.cacheWrite + sum((u) => u.output) * CLAUDE.output) / 1e6;
      expect(cost).toBeCloseTo(expected, 6);
    });

    test("Gemini: cached tokens from usage are priced as cache reads; the request marks nothing", async () => {
      const r = await start(runtime, "google/gemini-2.5-flash", (server) => ({ GEMINI_API_KEY: GEMINI_KEY, GOOGLE_GEMINI_BASE_URL: `${server.url}/v1beta` }));
      const usage = (step: number) => ({ input: 100, output: 10, cacheRead: step * 3000 });
      const cost = await readFour(r, usage);
      const requests = r.server.requests.filter((q) => q.path.endsWith(":streamGenerateContent"));
      expect(requests).toHaveLength(5);
      for (const request of requests) expect(JSON.stringify(request.body)).not.toMatch(/cache_?[cC]ontrol|cachePoint/);
      const steps = [0, 1, 2, 3, 4].map(usage);
      // gemini-2.5-flash: 0.30 input, 0.03 cache reads, 2.50 output.
      const expected = steps.reduce((n, u) => n + u.input * 0.3 + u.cacheRead * 0.03 + u.output * 2.5, 0) / 1e6;
      expect(cost).toBeCloseTo(expected, 8);
    });
  });
}
