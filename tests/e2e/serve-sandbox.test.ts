/**
 * The sandbox through `agent serve`: a session over the WebSocket in `auto`
 * mode runs a scripted model's commands without a permission request,
 * confined — a write in the project lands, a write outside and a read of the
 * fake `~/.ssh/id_rsa` of the test's home do not — and `session/status`
 * says its commands are sandboxed.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, initialize } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { connectWs, startServe, TOKEN } from "../helpers/serve-process.ts";

const KEY = "FAKE-PRIVATE-KEY-5f4dcc3b5aa765d6";

describe.each(RUNTIMES)("the sandbox through serve on %s", (runtime) => {
  test("auto mode over the WebSocket: commands run confined without asking", async () => {
    const sandbox = makeSandbox();
    const home = join(sandbox.root, "user");
    const temp = join(sandbox.root, "tmp");
    const outside = join(sandbox.root, "outside");
    for (const folder of [join(home, ".ssh"), temp, outside]) mkdirSync(folder, { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), `${KEY}\n`);
    const command = `echo in > inside.txt; echo x > ${outside}/escape.txt; cat ~/.ssh/id_rsa > stolen.txt; echo ran`;
    const script = sandbox.write("script.json", JSON.stringify([{ toolCalls: [{ id: "run", name: "bash", input: { command } }] }, { text: "done" }]));
    const server = await startServe(runtime, sandbox, { args: ["--model", "faux/script", "--approval-mode", "auto"], script, env: { HOME: home, TMPDIR: temp } });
    const requests: unknown[] = [];
    const client = connectWs(`${server.wsUrl}/acp`, TOKEN, {
      onPermission: (params: unknown) => {
        requests.push(params);
        return { outcome: { outcome: "cancelled" } };
      },
    });
    try {
      await initialize(client);
      const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      expect((await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
      expect(requests).toEqual([]);
      expect(readFileSync(join(sandbox.project, "inside.txt"), "utf8")).toBe("in\n");
      expect(existsSync(join(outside, "escape.txt"))).toBe(false);
      expect(readFileSync(join(sandbox.project, "stolen.txt"), "utf8")).not.toContain(KEY);
      const status = await (client.agent.request as (m: string, p: unknown) => Promise<any>)("session/status", { sessionId });
      expect(status.sandbox).toEqual({ setting: "auto", available: true, commands: "sandboxed" });
    } finally {
      client.close();
      await server.stop();
      sandbox.cleanup();
    }
  }, 60_000);
});
