/**
 * ACP over WebSocket on each runtime: the SDK's WebSocket client on /acp,
 * several clients sharing one durable session on /apc, and every bound:
 * oversize and binary frames, invalid JSON, a client that stops reading,
 * keepalive, and graceful shutdown.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, initialize, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { bearer, connectWs, rawSocket, startServe, SUBPROTOCOL, TOKEN, tryUpgrade } from "../helpers/serve-process.ts";
import { openTcpWebSocket } from "../helpers/tcp-websocket.ts";

const { methods } = acp;

async function setup(runtime: (typeof RUNTIMES)[number], script: unknown[], settings: Record<string, unknown> = {}) {
  const sandbox = makeSandbox();
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify(settings));
  const scriptFile = sandbox.write("script.json", JSON.stringify(script));
  const server = await startServe(runtime, sandbox, { script: scriptFile });
  const createSession = async (title?: string) =>
    (await (
      await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project, ...(title ? { title } : {}) }) })
    ).json()) as { id: string; generation: number };
  return {
    sandbox,
    server,
    createSession,
    async close() {
      await server.stop("SIGKILL");
      sandbox.cleanup();
    },
  };
}

describe.each(RUNTIMES)("serve over WebSocket on %s", (runtime) => {
  test("/acp with the SDK's WebSocket client: initialize → new → prompt → end_turn (token by header and by subprotocol)", async () => {
    const env = await setup(runtime, [{ text: "hello over a socket" }, { text: "and again" }]);
    try {
      for (const viaSubprotocol of [false, true]) {
        const client = connectWs(`${env.server.wsUrl}/acp`, TOKEN, { viaSubprotocol });
        const init = await initialize(client);
        expect(init.protocolVersion).toBe(1);
        const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] });
        const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
        expect(stopReason).toBe("end_turn");
        expect(agentText(client.updates(sessionId))).toBe(viaSubprotocol ? "and again" : "hello over a socket");
        client.close();
      }
    } finally {
      await env.close();
    }
  }, 60_000);

  test("/apc: two clients share a session — fan-out, queueing, cancel from the other, prompt echo, permissions to the owner", async () => {
    const env = await setup(runtime, [
      { text: "a slow answer streaming to everyone ".repeat(4), delayMs: 40 },
      { toolCalls: [{ id: "w1", name: "write", input: { path: "x.txt", content: "x" } }] },
      { text: "done" },
    ]);
    try {
      const { id, generation } = await env.createSession("shared");
      const url = `${env.server.wsUrl}/v1/session/shared/apc?generation=${generation}`;
      const asked: string[] = [];
      const alice = connectWs(url, TOKEN, { onPermission: (p) => (asked.push(`alice:${p.toolCall.toolCallId}`), { outcome: { outcome: "selected", optionId: p.options.find((o) => o.kind === "reject_once")!.optionId } }) });
      const bob = connectWs(url, TOKEN, { onPermission: (p) => (asked.push(`bob:${p.toolCall.toolCallId}`), { outcome: { outcome: "cancelled" } }) });
      await initialize(alice);
      await initialize(bob);
      // Before binding: listing works, session methods do not.
      expect((await bob.agent.request(methods.agent.session.list, {})).sessions.map((s) => s.sessionId)).toContain(id);
      await rpcError(bob.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "x" }] }), -32600);
      // session/new binds the route's session only when the cwd matches.
      await rpcError(alice.agent.request(methods.agent.session.new, { cwd: env.sandbox.root, mcpServers: [] }), -32602);
      expect((await alice.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] })).sessionId).toBe(id);
      await rpcError(bob.agent.request(methods.agent.session.load, { sessionId: "sess_other", cwd: env.sandbox.project, mcpServers: [] }), -32602);
      await bob.agent.request(methods.agent.session.load, { sessionId: id, cwd: env.sandbox.project, mcpServers: [] });

      const turn = alice.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "tell everyone" }] });
      await waitFor(() => agentText(bob.updates(id)).includes("slow answer"), 10_000, "bob to see alice's turn");
      expect(bob.updates(id).find((u) => u.sessionUpdate === "user_message_chunk")).toMatchObject({ content: { text: "tell everyone" } });
      // Bob's prompt waits for alice's turn; his cancel stops that turn and answers his queued prompt cancelled too.
      const queued = bob.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "me too" }] });
      await bob.agent.notify(methods.agent.session.cancel, { sessionId: id });
      expect((await turn).stopReason).toBe("cancelled");
      expect((await queued).stopReason).toBe("cancelled");

      // Permission requests go to the client that owns the turn.
      expect((await alice.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "write x" }] })).stopReason).toBe("end_turn");
      expect(asked).toEqual(["alice:w1"]);
      expect(bob.updates(id).some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "w1")).toBe(true);

      // session/close detaches only that client.
      await bob.agent.request(methods.agent.session.close, { sessionId: id });
      await bob.agent.request(methods.agent.session.resume, { sessionId: id, cwd: env.sandbox.project });
      alice.close();
      bob.close();
    } finally {
      await env.close();
    }
  }, 60_000);

  test("/apc: when the prompting client disconnects its turn is cancelled and the session is free again", async () => {
    const env = await setup(runtime, [{ text: "never finishes in time ".repeat(20), delayMs: 50 }, { text: "bob's turn" }]);
    try {
      const { id } = await env.createSession();
      const url = `${env.server.wsUrl}/v1/session/${id}/apc`;
      const alice = connectWs(url, TOKEN);
      const bob = connectWs(url, TOKEN);
      await initialize(alice);
      await initialize(bob);
      await alice.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] });
      await bob.agent.request(methods.agent.session.resume, { sessionId: id, cwd: env.sandbox.project });
      void alice.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "go" }] }).catch(() => undefined);
      await waitFor(() => agentText(bob.updates(id)).length > 0, 10_000, "the turn to stream");
      alice.close();
      // Bob's prompt waits for alice's turn, which is cancelled once the server notices she left; then it runs.
      const result = await bob.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "mine now" }] });
      expect(result.stopReason).toBe("end_turn");
      expect(agentText(bob.updates(id))).toContain("bob's turn");
      bob.close();
    } finally {
      await env.close();
    }
  }, 60_000);

  test("bounds: invalid JSON gets -32700 and the connection goes on; binary frames close 1003; oversize frames close 1009", async () => {
    const env = await setup(runtime, [], { serve: { maxMessageBytes: 64 * 1024 } });
    try {
      const open = async () => {
        const r = await tryUpgrade(`${env.server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
        if (!r.ok) throw new Error(`upgrade failed: ${r.status}`);
        return r.ws;
      };
      const ws = await open();
      const raw = rawSocket(ws);
      raw.send("{this is not json");
      await waitFor(() => raw.received.length === 1, 5000, "a parse error reply");
      expect(raw.received[0]).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      raw.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
      expect((await raw.response(1)).result.protocolVersion).toBe(1);
      ws.send(new Uint8Array([1, 2, 3]));
      expect((await raw.closed).code).toBe(1003);

      const big = await open();
      const bigRaw = rawSocket(big);
      big.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "initialize", params: { pad: "x".repeat(64 * 1024) } }));
      expect((await bigRaw.closed).code).toBe(1009);
    } finally {
      await env.close();
    }
  }, 60_000);

  test("a client that stops reading is closed alone; the turn and the other client carry on", async () => {
    const chunk = "0123456789".repeat(200);
    // How much the kernel buffers for a paused loopback reader varies (megabytes where earlier
    // connections tuned it up), so the fast client prompts again until the server has let the
    // slow one go: up to 12 floods of some 3-4 MB of frames each.
    const FLOODS = 12;
    const env = await setup(runtime, Array.from({ length: FLOODS }, () => ({ text: chunk.repeat(40), delayMs: 0 })), { serve: { maxBufferedBytes: 256 * 1024 } });
    try {
      const { id } = await env.createSession();
      const url = `${env.server.wsUrl}/v1/session/${id}/apc`;
      const fast = connectWs(url, TOKEN);
      await initialize(fast);
      await fast.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] });
      const slow = await openTcpWebSocket(url, bearer(TOKEN), [SUBPROTOCOL]);
      slow.sendJson({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
      slow.sendJson({ jsonrpc: "2.0", id: 2, method: "session/resume", params: { sessionId: id, cwd: env.sandbox.project } });
      await waitFor(() => slow.messages.some((m) => m.id === 2), 10_000, "the slow client to attach");
      // Stop reading: the server's writes to this client pile up in its buffer.
      slow.pause();
      // The close frame waits behind the unread data, and a server cannot keep
      // the socket for a client that never reads (Bun drops it a few seconds
      // after closing): read again as soon as the server has let it go.
      const openConnections = async () =>
        ((await (await fetch(`${env.server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()) as { connections: { open: number } }).connections.open;
      let floods = 0;
      let open = 2;
      while (open !== 1 && floods < FLOODS) {
        const turn = fast.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "flood" }] });
        floods += 1;
        let ended = false;
        void turn.then(() => (ended = true), () => (ended = true));
        for (open = await openConnections(); open !== 1 && !ended; open = await openConnections()) await Bun.sleep(20);
        const { stopReason } = await turn;
        expect(stopReason).toBe("end_turn");
      }
      expect(open).toBe(1);
      slow.resume();
      await slow.ended;
      expect(slow.closeCode).toBe(1008);
      expect(agentText(fast.updates(id)).length).toBe(chunk.length * 40 * floods);
      fast.close();
    } finally {
      await env.close();
    }
  }, 120_000);

  test("keepalive: a client that never answers pings is disconnected", async () => {
    const env = await setup(runtime, [], { serve: { pingIntervalSeconds: 0.2 } });
    try {
      const lazy = await tryUpgrade(`${env.server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN), autoPong: false });
      const lively = await tryUpgrade(`${env.server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
      if (!lazy.ok || !lively.ok) throw new Error("upgrade failed");
      const lazyRaw = rawSocket(lazy.ws);
      const started = Date.now();
      const { code } = await lazyRaw.closed;
      expect(code).toBe(1001);
      expect(Date.now() - started).toBeLessThan(3000);
      await new Promise((r) => setTimeout(r, 500));
      expect(lively.ws.readyState).toBe(lively.ws.OPEN);
      lively.ws.close();
    } finally {
      await env.close();
    }
  }, 60_000);

  test("graceful shutdown: not ready, running turns answered cancelled, sockets closed 1001, exit 0, nothing lost", async () => {
    const env = await setup(runtime, [{ text: "a turn that is still running at shutdown ".repeat(10), delayMs: 80 }]);
    try {
      const client = connectWs(`${env.server.wsUrl}/acp`, TOKEN);
      await initialize(client);
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] });
      const turn = client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "keep going" }] });
      await waitFor(() => agentText(client.updates(sessionId)).length > 0, 10_000, "the turn to stream");
      const exited = env.server.stop("SIGTERM");
      expect((await turn).stopReason).toBe("cancelled");
      expect(await exited).toBe(0);
      // The session survived: a new server loads the prompt that was being answered.
      const again = await startServe(runtime, env.sandbox, { args: ["--model", "faux/echo"] });
      const reader = connectWs(`${again.wsUrl}/acp`, TOKEN);
      await initialize(reader);
      await reader.agent.request(methods.agent.session.load, { sessionId, cwd: env.sandbox.project, mcpServers: [] });
      expect(reader.updates(sessionId)[0]).toMatchObject({ sessionUpdate: "user_message_chunk", content: { text: "keep going" } });
      reader.close();
      await again.stop();
    } finally {
      env.sandbox.cleanup();
    }
  }, 60_000);
});
