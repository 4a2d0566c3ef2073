/**
 * Language-server diagnostics after edits, over stdio with the fake model
 * server, in a TypeScript project with `typescript` and
 * `typescript-language-server` in its node_modules: a type error comes back
 * with its line in the tool result the model reads next; the fix brings none;
 * a new file importing a missing export reports it; the `diagnostics` tool
 * reports the same and refuses a path outside the project; after the agent
 * exits no language-server process remains.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../helpers/fake-model-server.ts";
import { toolResultsSent, writeTypeScriptProject } from "../helpers/lsp-project.ts";
import { processesWithEnv, processGone } from "../helpers/processes.ts";

const { methods } = acp;

const BROKEN = 'import { add } from "./lib";\n\nexport const total: string = add(1, 2);\n';
const FIXED = 'import { add } from "./lib";\n\nexport const total: number = add(1, 2);\n';
const MISSING_EXPORT = 'import { subtract } from "./lib";\n\nexport const left = subtract(3, 1);\n';

for (const runtime of RUNTIMES) {
  describe(`${runtime}: language-server diagnostics after edits`, () => {
    let sandbox: Sandbox;
    let server: FakeModelServer;
    let proc: AgentProcess;
    let client: TestClient;
    let sessionId: string;

    beforeAll(async () => {
      sandbox = makeSandbox();
      writeTypeScriptProject(sandbox);
      server = await startFakeModelServer();
      // Generous bounds: a loaded machine may take long to start the server; the assertions are on what it reports.
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0, lsp: { startWaitSeconds: 120, waitSeconds: 60 } }));
      proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5", "--approval-mode", "yolo"], {
        env: { TMPDIR: sandbox.root, ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-test-lsp-0123456789" },
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

    /** Runs one prompt in which the model makes `call`; returns what the model was sent back and the updates of the call. */
    async function callOnce(id: string, name: string, input: unknown): Promise<{ sent: string; shown: string }> {
      const turns: ScriptedTurn[] = [{ toolCalls: [{ id, name, input }] }, { text: "ok" }];
      server.push(...turns);
      const before = server.requests.length;
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
      expect(stopReason).toBe("end_turn");
      const sent = toolResultsSent(server.requests[before + 1]!);
      const updates = client.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id);
      return { sent, shown: JSON.stringify(updates.at(-1)) };
    }

    test("an edit that introduces a type error returns it with its line, to the model and the editor", async () => {
      const { sent, shown } = await callOnce("w1", "write", { path: "src/main.ts", content: BROKEN });
      expect(sent).toContain("reports 1 error in src/main.ts");
      expect(sent).toContain("line 3, column 14");
      expect(sent).toContain("Type 'number' is not assignable to type 'string'");
      expect(shown).toContain("Type 'number' is not assignable to type 'string'");
    }, 180_000);

    test("the fix returns no error", async () => {
      const { sent } = await callOnce("e1", "edit", { path: "src/main.ts", oldText: "total: string", newText: "total: number" });
      expect(sent).not.toContain("line 3");
      expect(sent).not.toContain("not assignable");
      expect(sent).toContain("reports no errors in src/main.ts now");
    }, 180_000);

    test("a new file importing a missing export reports it", async () => {
      const { sent } = await callOnce("w2", "write", { path: "src/other.ts", content: MISSING_EXPORT });
      expect(sent).toContain("in src/other.ts");
      expect(sent).toContain("line 1, column 10");
      expect(sent).toContain("has no exported member 'subtract'");
    }, 180_000);

    test("the diagnostics tool reports the same, for one file and for every changed file", async () => {
      const one = await callOnce("d1", "diagnostics", { path: "src/other.ts" });
      expect(one.sent).toContain("has no exported member 'subtract'");
      expect(one.sent).toContain("line 1, column 10");
      const fixed = await callOnce("d2", "diagnostics", { path: "src/main.ts" });
      expect(fixed.sent).toContain("reports no errors in src/main.ts");
      const all = await callOnce("d3", "diagnostics", {});
      expect(all.sent).toContain("has no exported member 'subtract'");
      expect(all.sent).not.toContain("src/main.ts");
    }, 180_000);

    test("the diagnostics tool refuses a path outside the project", async () => {
      sandbox.write("outside.ts", "export const x: string = 1;\n");
      const { sent } = await callOnce("d4", "diagnostics", { path: "../outside.ts" });
      expect(sent).toContain("outside the session's directories");
      expect(sent).not.toContain("not assignable");
    }, 180_000);

    test("after the agent exits no language-server process remains", async () => {
      // Everything the agent starts inherits its temp dir, which is this test's own.
      const mine = (p: { pid: number }) => p.pid !== proc.child.pid;
      const servers = processesWithEnv(`TMPDIR=${sandbox.root}`).filter(mine);
      expect(servers.some((p) => p.command.includes("typescript-language-server"))).toBe(true);
      expect(servers.some((p) => p.command.includes("tsserver"))).toBe(true);
      proc.child.stdin!.end();
      expect((await proc.exited).code).toBe(0);
      expect(servers.filter((p) => !processGone(p.pid))).toEqual([]);
      expect(processesWithEnv(`TMPDIR=${sandbox.root}`)).toEqual([]);
    }, 60_000);
  });
}
