/**
 * Providers set from the editor over `agent serve`'s WebSocket route: the same
 * `providers/set` as over stdio routes `anthropic` through a gateway whose
 * secret header stands in for the key; `auth/status` answers; the secret
 * reaches the gateway only (not answers, stderr or the agent's files).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acp, initialize, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { filesUnder } from "../helpers/hostile-project.ts";
import { connectWs, startServe, type ServeProcess } from "../helpers/serve-process.ts";

const { methods } = acp;
const SECRET = "ws-gateway-key-NEVER-SHOWN-94be";


for (const runtime of RUNTIMES) {
  describe(`${runtime}: providers from the editor over WebSocket`, () => {
    let sandbox: Sandbox;
    let gateway: FakeModelServer;
    let server: ServeProcess;
    let client: TestClient;
    const request = (method: string, params: unknown) => client.agent.request(method as never, params as never) as Promise<any>;

    beforeAll(async () => {
      sandbox = makeSandbox();
      gateway = await startFakeModelServer();
      server = await startServe(runtime, sandbox, { args: ["--model", "anthropic/claude-sonnet-4-5"], env: { ANTHROPIC_API_KEY: undefined } });
      client = connectWs(`${server.wsUrl}/acp`, server.token);
      await initialize(client);
    });

    afterAll(async () => {
      client.close();
      await server.stop("SIGKILL");
      await gateway.close();
      sandbox.cleanup();
    });

    test("a gateway header set over the socket lets a session complete a turn, and the secret stays where it was sent", async () => {
      expect((await request("auth/status", {})).state).toBe("unauthenticated");
      const refused = await rpcError(request("providers/set", { providerId: "anthropic", apiType: "anthropic", baseUrl: gateway.url, headers: { "X-Key": `${SECRET}\nX-Evil: 1` } }), -32602);
      expect(JSON.stringify(refused)).not.toContain(SECRET);
      expect(await request("providers/set", { providerId: "anthropic", apiType: "anthropic", baseUrl: gateway.url, headers: { "X-Key": SECRET } })).toEqual({});
      await waitFor(() => client.received.some((m) => m.method === "auth/status_update"), 10_000, "auth/status_update");
      expect(await request("auth/status", {})).toEqual({ state: "authenticated", accounts: [{ label: "anthropic (gateway set by the editor)", active: true }] });

      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      gateway.push({ text: "Hello over the socket." });
      expect((await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason).toBe("end_turn");
      expect(gateway.requests.at(-1)!.headers["x-key"]).toBe(SECRET);

      expect(JSON.stringify(client.received)).not.toContain(SECRET);
      expect(server.proc.stderr()).not.toContain(SECRET);
      expect(filesUnder(sandbox.root).filter((f) => f.text.includes(SECRET)).map((f) => f.path)).toEqual([]);
    });
  });
}
