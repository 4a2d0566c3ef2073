/**
 * Context files between prompts: the system prompt of each turn carries the
 * AGENTS.md files as they are when the prompt is sent — edited, removed or
 * added since the session opened — over real HTTP to the fake model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
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

    // Whole seconds: every runtime and file system stores them exactly, so the rewrite below restores the time to the bit.
    const SAME_TIME = 1_700_000_000;

    test("a rewrite that keeps the file's size and modification time reaches the next prompt", async () => {
      const path = join(sandbox.home, "AGENTS.md");
      utimesSync(path, SAME_TIME, SAME_TIME);
      expect(await systemOfNextTurn()).toContain("Home rule.");
      // What `rsync -t` or `cp -p` of a same-length file leaves: new bytes, old size, old mtime, same directory entry.
      writeFileSync(path, "Home RULE.\n");
      utimesSync(path, SAME_TIME, SAME_TIME);
      const system = await systemOfNextTurn();
      expect(system).toContain("Home RULE.");
      expect(system).not.toContain("Home rule.");
    });

    test("a file reached through a swapped symbolic link reaches the next prompt, even with the old size and time", async () => {
      // The project's AGENTS.md points into a release folder through a `current` link, swapped atomically on deploy
      // (in a folder of the project the agent does not search, so no searched folder changes).
      const deploy = join(sandbox.project, "deploy");
      sandbox.write("project/deploy/one/AGENTS.md", "Release one.\n");
      sandbox.write("project/deploy/two/AGENTS.md", "Release two.\n");
      for (const release of ["one", "two"]) utimesSync(join(deploy, release, "AGENTS.md"), SAME_TIME, SAME_TIME);
      symlinkSync(join(deploy, "one"), join(deploy, "current"));
      symlinkSync(join(deploy, "current", "AGENTS.md"), join(sandbox.project, "AGENTS.md"));
      expect(await systemOfNextTurn()).toContain("Release one.");
      symlinkSync(join(deploy, "two"), join(deploy, "next"));
      renameSync(join(deploy, "next"), join(deploy, "current"));
      const system = await systemOfNextTurn();
      expect(system).toContain("Release two.");
      expect(system).not.toContain("Release one.");
    });
  });
}
