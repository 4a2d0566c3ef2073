/**
 * Providers set from the editor (ACP's unstable `providers/*` and `auth/status`):
 * an SDK client over stdio routes the `anthropic` provider through a gateway (the
 * fake model server) with a secret header, and a session completes a turn with
 * no API key anywhere. The secret reaches the gateway and nothing else: not an
 * answer, an error, stdout, stderr, or any file in the agent's home or sessions.
 * Hostile `providers/set` params are each refused with -32602.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connectClient, initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent, type AgentProcess, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { filesUnder } from "../helpers/hostile-project.ts";

const { methods } = acp;
const SECRET = "gw-key-NEVER-SHOWN-7c41e9a2d5";


/** Hostile `providers/set` params for the anthropic provider, and a word the refusal must name. */
const HOSTILE: Array<[string, Record<string, unknown>, string]> = [
  ["an unknown provider", { providerId: "nope", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/" }, "unknown provider"],
  ["an api type the provider does not speak", { providerId: "anthropic", apiType: "openai", baseUrl: "http://127.0.0.1:1/" }, "supports anthropic"],
  ["a file: URL", { providerId: "anthropic", apiType: "anthropic", baseUrl: "file:///etc/passwd" }, "http or https"],
  ["a URL that is no URL", { providerId: "anthropic", apiType: "anthropic", baseUrl: "not a url" }, "not a URL"],
  ["credentials in the URL", { providerId: "anthropic", apiType: "anthropic", baseUrl: `https://user:${SECRET}@gateway.example/` }, "user name or password"],
  ["a CR/LF in the URL", { providerId: "anthropic", apiType: "anthropic", baseUrl: "https://gateway.example/\r\nX-Evil: 1" }, "control character"],
  ["a header name with CR/LF", { providerId: "anthropic", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/", headers: { "X-A\r\nX-Injected": SECRET } }, "not an HTTP header name"],
  ["a header value with CR/LF", { providerId: "anthropic", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/", headers: { "X-Gateway-Key": `${SECRET}\r\nX-Evil: 1` } }, "control character"],
  ["a huge header map", { providerId: "anthropic", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/", headers: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`x-h${i}`, SECRET])) }, "at most 32"],
  ["a huge header value", { providerId: "anthropic", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/", headers: { "X-Gateway-Key": SECRET.repeat(10_000) } }, "longer than"],
  ["a header the HTTP client owns", { providerId: "anthropic", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/", headers: { Host: "evil.example" } }, "set by the HTTP client"],
  ["a header value that is not text", { providerId: "anthropic", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/", headers: { "X-Gateway-Key": 42 } }, "must be a string"],
  ["headers that are no map", { providerId: "anthropic", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/", headers: [SECRET] }, "must be an object"],
  ["a provider id with control characters", { providerId: "anthropic\u0000", apiType: "anthropic", baseUrl: "http://127.0.0.1:1/" }, "control character"],
  ["no base URL", { providerId: "anthropic", apiType: "anthropic" }, "baseUrl"],
];

for (const runtime of RUNTIMES) {
  describe(`${runtime}: providers from the editor`, () => {
    let sandbox: Sandbox;
    let server: FakeModelServer;
    let proc: AgentProcess;
    let client: TestClient;
    const request = (method: string, params: unknown) => client.agent.request(method as never, params as never) as Promise<any>;
    const statusUpdates = () => client.received.filter((m) => m.method === "auth/status_update").map((m) => m.params as { state: string });

    beforeAll(async () => {
      sandbox = makeSandbox();
      server = await startFakeModelServer();
      // No key anywhere; the default model is Anthropic's, so that provider is required.
      proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5"], {
        env: { ACP_EDGE_HOME: sandbox.home, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined },
      });
      client = connectClient(proc);
    });

    afterAll(async () => {
      proc.child.kill("SIGKILL");
      await server.close();
      sandbox.cleanup();
    });

    test("initialize advertises providers and auth status; with no credentials the status says so and session/new asks for them", async () => {
      const answer = await initialize(client);
      expect(answer.agentCapabilities).toMatchObject({ providers: {}, auth: { logout: {}, status: {} } });
      expect(await request("auth/status", {})).toEqual({ state: "unauthenticated", accounts: [] });
      await rpcError(client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] }), -32000);
      const { providers } = await request("providers/list", {});
      expect(providers.find((p: { providerId: string }) => p.providerId === "anthropic")).toEqual({
        providerId: "anthropic",
        supported: ["anthropic"],
        required: true,
        current: { apiType: "anthropic", baseUrl: "https://api.anthropic.com/v1" },
      });
      expect(providers.find((p: { providerId: string }) => p.providerId === "groq")).toMatchObject({ supported: ["openai"], required: false });
      expect(providers.some((p: { providerId: string }) => p.providerId === "faux")).toBe(false);
    });

    test.each(HOSTILE)("providers/set refuses %s with -32602, quoting no header value", async (_name, params, words) => {
      const error = await rpcError(request("providers/set", params), -32602);
      expect(error.message).toContain(words);
      expect(JSON.stringify(error)).not.toContain(SECRET);
      expect(JSON.stringify(error)).not.toContain("X-Evil");
    });

    test("a gateway with a secret header stands in for the key: status update, then a session completes a turn", async () => {
      expect(await request("providers/set", { providerId: "anthropic", apiType: "anthropic", baseUrl: server.url, headers: { "X-Gateway-Key": SECRET } })).toEqual({});
      await waitFor(() => statusUpdates().length > 0, 10_000, "auth/status_update");
      expect(statusUpdates().at(-1)).toEqual({ state: "authenticated", accounts: [{ label: "anthropic (gateway set by the editor)", active: true }] });
      expect(await request("auth/status", {})).toEqual({ state: "authenticated", accounts: [{ label: "anthropic (gateway set by the editor)", active: true }] });
      const { providers } = await request("providers/list", {});
      expect(providers.find((p: { providerId: string }) => p.providerId === "anthropic").current).toEqual({ apiType: "anthropic", baseUrl: server.url });

      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      server.push({ text: `Through the gateway. ${SECRET}`, usage: { input: 10, output: 5 } });
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "Hello?" }] });
      expect(stopReason).toBe("end_turn");
      const sent = server.requests.at(-1)!;
      expect(sent.path).toBe("/v1/messages");
      expect(sent.headers["x-gateway-key"]).toBe(SECRET);
      // No key of the agent's own went to the gateway.
      expect(sent.headers["x-api-key"] ?? "").toBe("");
    });

    test("providers/disable: a required provider refuses, another is switched off and listed as such", async () => {
      const error = await rpcError(request("providers/disable", { providerId: "anthropic" }), -32602);
      expect(error.message).toContain("required");
      await rpcError(request("providers/disable", { providerId: "no-such-provider" }), -32602);
      expect(await request("providers/disable", { providerId: "openai" })).toEqual({});
      const { providers } = await request("providers/list", {});
      expect(providers.find((p: { providerId: string }) => p.providerId === "openai").current ?? null).toBeNull();
    });

    test("logout changes the status and tells the client once", async () => {
      const before = statusUpdates().length;
      await client.agent.request(methods.agent.logout, {});
      await waitFor(() => statusUpdates().length > before, 10_000, "auth/status_update after logout");
      expect(statusUpdates().at(-1)!.state).toBe("unauthenticated");
      expect((await request("auth/status", {})).state).toBe("unauthenticated");
    });

    test("the secret appears nowhere it was not sent: no answer, no stderr, no file of the agent", async () => {
      // Whatever the model said back is redacted like a key.
      expect(JSON.stringify(client.received)).not.toContain(SECRET);
      expect(proc.stderr()).not.toContain(SECRET);
      const files = filesUnder(sandbox.root);
      expect(files.some((f) => f.path.endsWith(".jsonl"))).toBe(true);
      expect(files.filter((f) => f.text.includes(SECRET)).map((f) => f.path)).toEqual([]);
    });
  });
}
