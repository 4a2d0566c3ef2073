/**
 * The catalogue's run-time refresh, through the CLI on each runtime, with a
 * local server in place of models.dev (`catalog.url`): after a turn was
 * answered the agent fetches the catalogue in the background, keeps it in its
 * home (mode 0600) and the next session uses it; a body that is not
 * models.dev's data is refused whole and the shipped snapshot stays.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { startWebServer, type WebServer } from "../helpers/web-server.ts";
import { CATALOG_PLAN } from "../../src/models/catalog-data/catalog-plan.ts";

const { methods } = acp;
const KEY = "sk-ant-refresh-test-51c0e8";

/** models.dev's api.json shape: every provider the agent keeps, Anthropic's Sonnet 4.5 with a window of its own. */
function catalogueBody(sonnet: Record<string, unknown>): string {
  const body: Record<string, unknown> = {};
  for (const source of CATALOG_PLAN.flatMap((plan) => plan.sources)) body[source] = { id: source, name: source, env: [], models: {} };
  (body.anthropic as { models: Record<string, unknown> }).models["claude-sonnet-4-5"] = {
    id: "claude-sonnet-4-5",
    name: "Claude Sonnet 4.5 (refreshed)",
    tool_call: true,
    reasoning: true,
    modalities: { input: ["text", "image"], output: ["text"] },
    limit: { context: 123_456, output: 8_192 },
    cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    ...sonnet,
  };
  return JSON.stringify(body);
}

const CASES: Array<[string, string, number]> = [
  ["models.dev's data", catalogueBody({}), 123_456],
  ["a body with a price that is no number", catalogueBody({ cost: { input: "free", output: 15 } }), 200_000],
];

for (const runtime of RUNTIMES) {
  describe.each(CASES)(`${runtime}: a catalogue refresh serving %s`, (_name, body, expectedWindow) => {
    let sandbox: Sandbox;
    let model: FakeModelServer;
    let site: WebServer;
    let proc: AgentProcess;
    let client: TestClient;

    const windowOfNewSession = async () => {
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      model.push({ text: "ok", usage: { input: 10, output: 2 } });
      expect((await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason).toBe("end_turn");
      const usage = client.updates(sessionId).find((u) => u.sessionUpdate === "usage_update") as { size: number };
      return usage.size;
    };

    beforeAll(async () => {
      sandbox = makeSandbox();
      model = await startFakeModelServer();
      site = await startWebServer({
        "/api.json": (response) => {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(body);
        },
      });
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, catalog: { refresh: true, url: `http://127.0.0.1:${site.port}/api.json` } }));
      proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"], {
        env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: model.url },
      });
      client = connectClient(proc);
      await initialize(client);
    });

    afterAll(async () => {
      proc.child.kill("SIGKILL");
      await Promise.all([model.close(), site.close()]);
      sandbox.cleanup();
    });

    test("the first session has the shipped snapshot's facts; the next has what the refresh brought, or the snapshot's again", async () => {
      expect(await windowOfNewSession()).toBe(200_000);
      const cache = join(sandbox.home, "catalog-cache.json");
      if (expectedWindow === 200_000) {
        await waitFor(() => proc.stderr().includes("the catalogue refresh was refused"), 20_000, "the refusal");
        expect(proc.stderr()).toContain("price that is not a number");
        expect(existsSync(cache)).toBe(false);
      } else {
        await waitFor(() => existsSync(cache), 20_000, "the catalogue cache");
        expect(statSync(cache).mode & 0o777).toBe(0o600);
      }
      expect(site.requests).toEqual(["/api.json"]);
      expect(await windowOfNewSession()).toBe(expectedWindow);
      // Once per process: the second turn fetched nothing more.
      expect(site.requests).toEqual(["/api.json"]);
    });
  });
}
