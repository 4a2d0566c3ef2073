/**
 * Outbound requests behind a proxy, on every runtime: the provider and an
 * MCP server sit behind names only the test proxy resolves (`*.invalid`
 * never resolves anywhere else), so a turn that completes went through the
 * proxy. HTTP_PROXY, HTTPS_PROXY and NO_PROXY in both cases, a proxy that
 * refuses, one that is not there, and a project `.env` that names a proxy.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { agentText } from "../helpers/acp-client.ts";
import { RUNTIMES, type RuntimeName } from "../helpers/agent-process.ts";
import { startAnthropicAgent, stopAnthropicAgents, type AnthropicAgentOptions } from "../helpers/anthropic-agent.ts";
import { rpcError } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";
import { startHttpMcpServer, type HttpMcpServer } from "../helpers/mcp-test-server.ts";
import { startRecordingProxy, type RecordingProxy } from "../helpers/recording-proxy.ts";
import { toolText } from "../helpers/scenario.ts";

const KEY = "sk-ant-proxy-test-key-5c2e91d0";
const PROXY_PASSWORD = "proxy-pass-never-shown-7f3a";
const MODEL_HOST = "model.invalid";
const MCP_HOST = "mcp.invalid";

let provider: FakeModelServer;
let mcp: HttpMcpServer;
let proxy: RecordingProxy;
let refusing: RecordingProxy;
let providerPort: string;
let closedPort: number;

beforeAll(async () => {
  provider = await startFakeModelServer();
  mcp = await startHttpMcpServer({});
  providerPort = new URL(provider.url).port;
  const mcpPort = new URL(mcp.url).port;
  proxy = await startRecordingProxy({ hosts: { [MODEL_HOST]: `127.0.0.1:${providerPort}`, [MCP_HOST]: `127.0.0.1:${mcpPort}` } });
  refusing = await startRecordingProxy({ hosts: {}, refuse: 403 });
  // A port nothing listens on: a proxy that is not there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await Promise.all([provider.close(), mcp.close(), proxy.close(), refusing.close()]);
});

test("the names behind the proxy resolve nowhere else", async () => {
  const direct = await fetch(`http://${MODEL_HOST}:${providerPort}/v1/messages`, { method: "POST", body: "{}" }).then(
    () => "reached",
    () => "unreachable",
  );
  expect(direct).toBe("unreachable");
});

afterEach(stopAnthropicAgents);

/** An agent on `runtime` using Anthropic at `baseUrl`, with `env` added; its session is open. */
function startAgent(runtime: RuntimeName, baseUrl: string, env: Record<string, string>, options: Omit<AnthropicAgentOptions, "key" | "env"> = {}) {
  return startAnthropicAgent(runtime, baseUrl, { key: KEY, env, ...options });
}

/** What the proxies saw since `from` (an index into each one's log). */
function since(log: RecordingProxy, from: number) {
  return log.requests.slice(from);
}

for (const runtime of RUNTIMES) {
  describe(`${runtime} behind a proxy`, () => {
    // NODE_USE_ENV_PROXY=1: Node's own fetch reads the variables where it can (22.21+, 24.5+), undici's agent elsewhere.
    test.each([
      ["HTTP_PROXY", ""],
      ["http_proxy", ""],
      ["HTTP_PROXY", "NODE_USE_ENV_PROXY"],
    ])("a whole prompt turn reaches the provider only through %s %s, with the proxy's credentials", async (variable, nodeSwitch) => {
      const from = proxy.requests.length;
      const proxyUrl = proxy.url.replace("http://", `http://agent:${PROXY_PASSWORD}@`);
      const agent = await startAgent(runtime, `http://${MODEL_HOST}:${providerPort}`, { [variable]: proxyUrl, ...(nodeSwitch ? { [nodeSwitch]: "1" } : {}) });
      provider.push({ text: "Hello through the proxy." });
      const before = agent.client.updates(agent.sessionId).length;
      const { stopReason } = await agent.prompt("hi");
      expect(stopReason).toBe("end_turn");
      expect(agentText(agent.client.updates(agent.sessionId).slice(before))).toBe("Hello through the proxy.");
      expect(provider.requests.at(-1)).toMatchObject({ path: "/v1/messages", headers: { "x-api-key": KEY } });
      // Forwarded (Bun, Deno) or tunnelled (undici on Node): either way the proxy saw the provider's name.
      const seen = since(proxy, from);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((request) => request.target === `${MODEL_HOST}:${providerPort}` && request.status === 200)).toBe(true);
      expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from(`agent:${PROXY_PASSWORD}`).toString("base64")}`);
      expect(agent.proc.stderr()).not.toContain(PROXY_PASSWORD);
    });

    test.each(["NO_PROXY", "no_proxy"])("a host listed in %s is reached directly; the same host unlisted goes to the proxy", async (variable) => {
      const direct = `http://127.0.0.1:${providerPort}`;
      const from = proxy.requests.length;
      const bypassing = await startAgent(runtime, direct, { HTTP_PROXY: proxy.url, [variable]: `example.com,127.0.0.1` });
      provider.push({ text: "Hello directly." });
      expect(await bypassing.prompt("hi")).toMatchObject({ stopReason: "end_turn" });
      expect(since(proxy, from)).toEqual([]);

      // Without the listing the proxy gets the request, and this proxy does not know 127.0.0.1.
      const proxied = await startAgent(runtime, direct, { HTTP_PROXY: proxy.url, [variable]: "example.com" });
      await rpcError(proxied.prompt("hi"), -32603);
      expect(since(proxy, from).map((request) => request.target)).toContain(`127.0.0.1:${providerPort}`);
    });

    test("NO_PROXY naming a parent domain covers its subdomains: the provider's name is then looked up directly, and not found", async () => {
      const from = proxy.requests.length;
      const agent = await startAgent(runtime, `http://${MODEL_HOST}:${providerPort}`, { HTTP_PROXY: proxy.url, NO_PROXY: "localhost, invalid" });
      const error = await rpcError(agent.prompt("hi"), -32603);
      expect(error.message).toStartWith(`Model request failed: anthropic: could not connect to http://${MODEL_HOST}:${providerPort}/v1 (host not found; HTTP_PROXY is `);
      expect(since(proxy, from)).toEqual([]);
    });

    test("a proxy that refuses the tunnel is named in the error, and the request is not retried", async () => {
      const from = refusing.requests.length;
      const agent = await startAgent(runtime, `https://${MODEL_HOST}:${providerPort}`, { HTTPS_PROXY: refusing.url }, { maxRetries: 2 });
      const error = await rpcError(agent.prompt("hi"), -32603);
      expect(error.message).toContain(`anthropic: could not connect to https://${MODEL_HOST}:${providerPort}/v1 (the proxy refused the connection`);
      expect(error.message).toContain(`HTTPS_PROXY is ${refusing.url}`);
      const attempts = since(refusing, from);
      // A tunnel was asked for and refused; Deno's HTTP client may ask the refusing proxy a second time for
      // the same request. A retry of ours (maxRetries: 2) would make it three or more.
      expect(attempts[0]).toEqual({ method: "CONNECT", target: `${MODEL_HOST}:${providerPort}`, status: 403 });
      expect(attempts.every((request) => request.target === `${MODEL_HOST}:${providerPort}` && request.status === 403)).toBe(true);
      expect(attempts.length).toBeLessThan(3);
    });

    test("a proxy that is not there: the error says which proxy is set, without its password", async () => {
      const agent = await startAgent(runtime, `https://${MODEL_HOST}:${providerPort}`, { https_proxy: `http://agent:${PROXY_PASSWORD}@127.0.0.1:${closedPort}` });
      const error = await rpcError(agent.prompt("hi"), -32603);
      expect(error.message).toBe(`Model request failed: anthropic: could not connect to https://${MODEL_HOST}:${providerPort}/v1 (connection refused; https_proxy is http://127.0.0.1:${closedPort})`);
      expect(JSON.stringify(agent.client.received) + agent.proc.stderr()).not.toContain(PROXY_PASSWORD);
    });

    test.each([
      ["Streamable HTTP", "http", "/mcp"],
      ["HTTP+SSE", "sse", "/sse"],
    ] as const)("an MCP server over %s is reached through the proxy", async (_name, type, path) => {
      const from = proxy.requests.length;
      const agent = await startAgent(
        runtime,
        `http://${MODEL_HOST}:${providerPort}`,
        { HTTP_PROXY: proxy.url },
        { mcpServers: [{ type, name: "web", url: `http://${MCP_HOST}:${new URL(mcp.url).port}${path}`, headers: [] }] },
      );
      provider.push({ toolCalls: [{ id: "m1", name: "mcp__web__echo", input: { text: "via the proxy" } }] }, { text: "done" });
      expect(await agent.prompt("use the tool")).toMatchObject({ stopReason: "end_turn" });
      expect(toolText(agent.client.updates(agent.sessionId), "m1")).toContain("via the proxy");
      expect(since(proxy, from).map((request) => request.target)).toContain(`${MCP_HOST}:${new URL(mcp.url).port}`);
    });

    test("a project's .env cannot send the provider's traffic through a proxy", async () => {
      const from = proxy.requests.length;
      const agent = await startAgent(runtime, `http://127.0.0.1:${providerPort}`, {}, { dotenv: `HTTP_PROXY=${proxy.url}\nhttps_proxy=${proxy.url}\n` });
      provider.push({ text: "Hello directly." });
      expect(await agent.prompt("hi")).toMatchObject({ stopReason: "end_turn" });
      expect(since(proxy, from)).toEqual([]);
    });
  });
}
