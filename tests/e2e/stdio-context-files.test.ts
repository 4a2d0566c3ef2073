/**
 * Context files between prompts: the system prompt of each turn carries the
 * AGENTS.md files as they are when the prompt is sent — edited, removed or
 * added since the session opened — over real HTTP to the fake model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";

const { methods } = acp;

for (const runtime of RUNTIMES) {
  describe(`${runtime}: context files between prompts`, () => {
    let sandbox: Sandbox;
    let server: FakeModelServer;
    let proc: AgentProcess;
    let client: TestClient;
    let sessionId: string;

    beforeAll(async () => {
      sandbox = makeSandbox();
      sandbox.write("project/AGENTS.md", "Rule one.\n");
      server = await startFakeModelServer();
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
      proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"], {
        env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-test-context-0123456789" },
      });
      client = connectClient(proc);
      await initialize(client);
      ({ sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }));
    });

    afterAll(async () => {
      proc.child.kill("SIGKILL");
      await server.close();
      sandbox.cleanup();
    });

    /** Sends one prompt and returns the system prompt the model received for it. */
    async function systemOfNextTurn(): Promise<string> {
      server.push({ text: "ok" });
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(stopReason).toBe("end_turn");
      return JSON.stringify(server.requests.at(-1)?.body?.system);
    }

    test("an unchanged file is sent as it was read", async () => {
      expect(await systemOfNextTurn()).toContain("Rule one.");
      expect(await systemOfNextTurn()).toContain("Rule one.");
    });

    test("an edit reaches the next prompt", async () => {
      writeFileSync(join(sandbox.project, "AGENTS.md"), "Rule number two, edited.\n");
      const system = await systemOfNextTurn();
      expect(system).toContain("Rule number two, edited.");
      expect(system).not.toContain("Rule one.");
    });

    test("a removed file leaves and a new one in the user's home arrives", async () => {
      rmSync(join(sandbox.project, "AGENTS.md"));
      sandbox.write("home/AGENTS.md", "Home rule.\n");
      const system = await systemOfNextTurn();
      expect(system).not.toContain("Rule number two");
      expect(system).toContain("Home rule.");
    });
  });
}
