/**
 * ACP over Streamable HTTP on `/acp` (the SDK's `createHttpStream` client)
 * on each runtime: a whole turn with a tool call, refusal without the bearer
 * header, a body over the message limit, and HTTP and WebSocket clients on
 * one server at once.
 */
import { describe, expect, test } from "bun:test";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { agentText, connectStream, initialize, acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { bearer, connectHttp, connectWs, startScriptedServe, TOKEN } from "../helpers/serve-process.ts";

const { methods } = acp;

const setup = (runtime: (typeof RUNTIMES)[number], script: unknown[], settings: Record<string, unknown> = {}) => startScriptedServe(runtime, script, settings);

describe.each(RUNTIMES)("ACP over Streamable HTTP on %s", (runtime) => {
  test("initialize → new → prompt with a tool call → end_turn", async () => {
    const env = await setup(runtime, [{ toolCalls: [{ id: "r1", name: "read", input: { path: "notes.txt" } }] }, { text: "read it over HTTP" }]);
    try {
      env.sandbox.write("project/notes.txt", "the notes\n");
      const client = connectHttp(env.server.url, TOKEN);
      expect((await initialize(client)).protocolVersion).toBe(1);
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] });
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "read the notes" }] });
      expect(stopReason).toBe("end_turn");
      const updates = client.updates(sessionId);
      const toolCall = updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "r1" && u.status === "completed");
      expect(toolCall).toBeDefined();
      expect(JSON.stringify(toolCall)).toContain("the notes");
      expect(agentText(updates)).toBe("read it over HTTP");
      client.close();
    } finally {
      await env.close();
    }
  }, 60_000);

  test("without the bearer header: 401 with WWW-Authenticate and a JSON body; a subprotocol entry does not count", async () => {
    const env = await setup(runtime, []);
    try {
      const init = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } });
      for (const headers of [{}, bearer("wrong-token-0123456789"), { "sec-websocket-protocol": `acp.bearer.${TOKEN}` }]) {
        const refused = await fetch(`${env.server.url}/acp`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: init });
        expect(refused.status).toBe(401);
        expect(refused.headers.get("www-authenticate")).toContain("Bearer");
        expect((await refused.json()).error.code).toBe("unauthorized");
      }
      // The SDK client without the token: its initialize fails and nothing is served.
      const client = connectStream(createHttpStream(`${env.server.url}/acp`));
      expect(await initialize(client).then(() => "answered", (error: Error) => error.message)).not.toBe("answered");
      client.close();
    } finally {
      await env.close();
    }
  }, 60_000);

  test("a body over the message limit is refused with 413 before it is parsed", async () => {
    const env = await setup(runtime, [], { serve: { maxMessageBytes: 4096 } });
    try {
      const big = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, pad: "x".repeat(8192) } });
      const refused = await fetch(`${env.server.url}/acp`, { method: "POST", headers: { "content-type": "application/json", ...bearer(TOKEN) }, body: big });
      expect(refused.status).toBe(413);
      expect((await refused.json()).error.code).toBe("message_too_large");
    } finally {
      await env.close();
    }
  }, 60_000);

  test("HTTP and WebSocket clients on one server at once; capabilities list both transports", async () => {
    const env = await setup(runtime, [{ text: "one", delayMs: 20 }, { text: "two", delayMs: 20 }]);
    try {
      const overHttp = connectHttp(env.server.url, TOKEN);
      const overWs = connectWs(`${env.server.wsUrl}/acp`, TOKEN);
      await Promise.all([initialize(overHttp), initialize(overWs)]);
      const [a, b] = await Promise.all([
        overHttp.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] }),
        overWs.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] }),
      ]);
      const caps = await (await fetch(`${env.server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json();
      expect(caps.connections).toMatchObject({ open: 2, http: 1 });
      expect(caps.transports).toMatchObject({ http: { route: "/acp" }, websocket: { routes: ["/acp", "/v1/session/{ref}/apc"] } });
      const ends = await Promise.all([
        overHttp.agent.request(methods.agent.session.prompt, { sessionId: a.sessionId, prompt: [{ type: "text", text: "hi" }] }),
        overWs.agent.request(methods.agent.session.prompt, { sessionId: b.sessionId, prompt: [{ type: "text", text: "hi" }] }),
      ]);
      expect(ends.map((e) => e.stopReason)).toEqual(["end_turn", "end_turn"]);
      expect([agentText(overHttp.updates(a.sessionId)), agentText(overWs.updates(b.sessionId))].sort()).toEqual(["one", "two"]);
      overHttp.close();
      overWs.close();
    } finally {
      await env.close();
    }
  }, 60_000);
});
