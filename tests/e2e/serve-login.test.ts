/**
 * `agent serve` and logging in: a remote client gets no terminal method (its
 * terminal is not where the agent runs) and no path of the server's machine;
 * after `acp-edge login` on the server's machine, the same connection opens
 * a session with the new key, without a restart. Then `logout` takes it away
 * again for the next session.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { agentText, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, runAgentCommand, type RuntimeName, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { connectWs, startServe, type ServeProcess } from "../helpers/serve-process.ts";

const { methods } = acp;
const KEY = "sk-ant-served-login-0123456789";

describe.each(RUNTIMES)("login while serving on %s", (runtime: RuntimeName) => {
  let sandbox: Sandbox;
  let fake: FakeModelServer;
  let server: ServeProcess;

  beforeAll(async () => {
    sandbox = makeSandbox();
    fake = await startFakeModelServer([], { reply: () => ({ text: "served with the new key" }) });
    server = await startServe(runtime, sandbox, { args: [], env: { ANTHROPIC_BASE_URL: fake.url } });
  });
  afterAll(async () => {
    server.proc.child.kill("SIGKILL");
    await fake.close();
    sandbox.cleanup();
  });

  test("no terminal method over the network; login on the server's machine is seen by the open connection", async () => {
    const client = connectWs(`${server.wsUrl}/acp`, server.token);
    try {
      const init = await client.agent.request(methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { auth: { terminal: true }, _meta: { "terminal-auth": true } },
      });
      expect(init.authMethods?.map((m) => m.id)).toEqual(["acp-edge-credentials"]);
      expect(init.authMethods?.[0]?._meta ?? undefined).toBeUndefined();
      expect(init.authMethods?.[0]?.description).toContain("where the agent runs");
      expect(JSON.stringify(init.authMethods)).not.toContain(sandbox.root);
      const refused = await rpcError(client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }), -32000);
      expect(refused.message).not.toContain(sandbox.root);

      const login = await runAgentCommand(runtime, ["login", "--provider", "anthropic"], {
        env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_BASE_URL: fake.url },
        input: `${KEY}\n`,
      });
      expect(login).toMatchObject({ code: 0 });
      expect(login.stdout + login.stderr).not.toContain(KEY);

      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      const before = fake.requests.length;
      const response = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(response.stopReason).toBe("end_turn");
      expect(agentText(client.updates(sessionId))).toBe("served with the new key");
      expect(fake.requests.slice(before).at(-1)?.headers["x-api-key"]).toBe(KEY);

      const logout = await runAgentCommand(runtime, ["logout", "anthropic"], { env: { ACP_EDGE_HOME: sandbox.home } });
      expect(logout.code).toBe(0);
      await rpcError(client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }), -32000);
    } finally {
      client.close();
    }
  }, 120_000);
});
