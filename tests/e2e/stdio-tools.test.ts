/**
 * Every read-only tool through the whole agent on each runtime (node runs
 * the bundled dist, so this also proves the bundle carries the tools'
 * dependencies), with titles, kinds and locations as an editor sees them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { connectClient, initialize, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";

describe.each(RUNTIMES)("read-only tools on %s", (runtime) => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = makeSandbox();
    sandbox.write("project/src/app.ts", "export const greeting = 'hello';\n// TODO: more\n");
    sandbox.write("project/src/util.ts", "export function add(a: number, b: number) { return a + b; }\n");
    sandbox.write("project/build/out.js", "ignored output TODO\n");
    sandbox.write("project/.gitignore", "build/\n");
    sandbox.write("project/AGENTS.md", "Always answer in English.\n");
  });
  afterAll(() => sandbox.cleanup());

  test("ls, find, grep and read run and report what they did", async () => {
    const script = sandbox.write(
      "tools.json",
      JSON.stringify([
        {
          toolCalls: [
            { id: "t_ls", name: "ls", input: { path: "src" } },
            { id: "t_find", name: "find", input: { pattern: "*.ts" } },
            { id: "t_grep", name: "grep", input: { pattern: "TODO" } },
            { id: "t_read", name: "read", input: { path: "src/util.ts", offset: 1 } },
          ],
        },
        { text: "done" },
      ]),
    );
    const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "faux/script"], { env: { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script } });
    const client = connectClient(proc);
    try {
      await initialize(client);
      const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      const { stopReason } = await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "look around" }] });
      expect(stopReason).toBe("end_turn");
      const updates = client.updates(sessionId);
      const call = (id: string) => updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === id);
      const result = (id: string) =>
        JSON.stringify(updates.findLast((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status === "completed"));

      expect(call("t_ls")).toMatchObject({ title: "List src/", kind: "read", locations: [{ path: join(sandbox.project, "src") }] });
      expect(result("t_ls")).toContain("app.ts");
      expect(call("t_find")).toMatchObject({ title: "Find *.ts", kind: "search" });
      expect(result("t_find")).toContain("src/util.ts");
      expect(call("t_grep")).toMatchObject({ title: 'Grep "TODO"', kind: "search" });
      expect(result("t_grep")).toContain("src/app.ts:2");
      expect(result("t_grep")).not.toContain("out.js"); // .gitignore respected
      expect(call("t_read")).toMatchObject({ title: "Read src/util.ts (from line 1)", kind: "read", locations: [{ path: join(sandbox.project, "src/util.ts"), line: 1 }] });
      expect(result("t_read")).toContain("function add");
    } finally {
      client.close();
      proc.child.kill("SIGKILL");
    }
  });
});
