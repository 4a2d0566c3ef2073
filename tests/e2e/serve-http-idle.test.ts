/**
 * Streamable HTTP connections that their clients abandon, on each runtime:
 * 64 `initialize` POSTs that never DELETE no longer lock new WebSocket and
 * HTTP clients out — a full server closes the connection idle the longest
 * to let a new client in, and every idle connection is closed at its
 * deadline, as if deleted, its session left to load again — while a
 * connection with an open event stream or a running turn is never closed.
 * Waits are for events (a log line naming the closed connection, a message
 * on a stream), not for time. (Server memory: bench/serve-hostile.mjs.)
 */
import { describe, expect, test } from "bun:test";
import { acp, agentText, initialize } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { openRawConnection, type RawAcpConnection, type RawEventStream } from "../helpers/raw-acp-http.ts";
import { bearer, connectHttp, connectWs, startScriptedServe, SUBPROTOCOL, TOKEN, tryUpgrade, type ServeProcess } from "../helpers/serve-process.ts";

const { methods } = acp;
const capabilities = async (server: ServeProcess) =>
  (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()) as { connections: { open: number; http: number; httpIdle: number } };

/** Resolves once the server counts `count` idle HTTP connections (a client's close reaches it a moment later). */
async function waitForIdle(server: ServeProcess, count: number) {
  const deadline = Date.now() + 20_000;
  while ((await capabilities(server)).connections.httpIdle !== count) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} idle HTTP connections`);
  }
}

const setup = (runtime: (typeof RUNTIMES)[number], serve: Record<string, unknown>, script: unknown[], args: string[] = []) => startScriptedServe(runtime, script, { serve }, args);

/** Opens `count` connections with `initialize` and leaves them: no stream, no DELETE. */
async function abandon(server: ServeProcess, count: number): Promise<RawAcpConnection[]> {
  const left: RawAcpConnection[] = [];
  for (let i = 0; i < count; i += 1) left.push(await openRawConnection(server.url, TOKEN));
  return left;
}

/** A raw connection with a session whose prompt runs a turn now waiting for permission; none of its streams open. */
async function turnWaitingForPermission(server: ServeProcess, cwd: string) {
  const connection = await openRawConnection(server.url, TOKEN);
  const events = await connection.stream();
  expect(await connection.post({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd, mcpServers: [] } })).toBe(202);
  const { sessionId } = (await events.next((m) => m.id === 1)).result;
  const sessionEvents = await connection.stream(sessionId);
  expect(await connection.post({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "write it" }] } }, sessionId)).toBe(202);
  const asked = await sessionEvents.next((m) => m.method === "session/request_permission");
  sessionEvents.close();
  events.close();
  await Promise.all([sessionEvents.ended, events.ended]);
  const allow = asked.params.options.find((o: { kind: string }) => o.kind === "allow_once").optionId;
  return {
    connection,
    sessionId,
    /** Reopens the session's stream, allows the write, and resolves with the prompt's answer. */
    async finish() {
      const again = await connection.stream(sessionId);
      expect(await connection.post({ jsonrpc: "2.0", id: asked.id, result: { outcome: { outcome: "selected", optionId: allow } } }, sessionId)).toBe(202);
      const answer = await again.next((m) => m.id === 2);
      again.close();
      await again.ended;
      return answer;
    },
  };
}

/** The connection still answers: a session/new over it is answered on its stream. */
async function expectWorking(connection: RawAcpConnection, events: RawEventStream, cwd: string) {
  expect(await connection.post({ jsonrpc: "2.0", id: 99, method: "session/new", params: { cwd, mcpServers: [] } })).toBe(202);
  expect((await events.next((m) => m.id === 99)).result.sessionId).toMatch(/^sess_/);
}

const PERMISSION_TURN = [{ toolCalls: [{ id: "w1", name: "write", input: { path: "out.txt", content: "x" } }] }, { text: "written" }];

describe.each(RUNTIMES)("idle Streamable HTTP connections on %s", (runtime) => {
  test("64 abandoned initializes: a new WebSocket and a new HTTP client each close the idlest and get in", async () => {
    const env = await setup(runtime, { httpIdleEvictSeconds: 0 }, [{ text: "served" }]);
    try {
      const abandoned = await abandon(env.server, 64);
      expect((await capabilities(env.server)).connections).toMatchObject({ open: 64, http: 64 });
      const overWs = connectWs(`${env.server.wsUrl}/acp`, TOKEN);
      await initialize(overWs);
      const overHttp = connectHttp(env.server.url, TOKEN);
      await initialize(overHttp);
      const { sessionId } = await overHttp.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] });
      expect((await overHttp.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason).toBe("end_turn");
      expect(agentText(overHttp.updates(sessionId))).toBe("served");
      // The two idle the longest were closed as if deleted; the rest are untouched.
      expect(await abandoned[0]!.probe()).toBe(404);
      expect(await abandoned[1]!.probe()).toBe(404);
      expect(await abandoned[2]!.probe()).toBe(200);
      expect((await capabilities(env.server)).connections).toMatchObject({ open: 64, http: 63 });
      overWs.close();
      overHttp.close();
    } finally {
      await env.close();
    }
  }, 90_000);

  test("a connection with an open event stream or a running turn is never closed to make room", async () => {
    const env = await setup(runtime, { maxConnections: 3, httpIdleEvictSeconds: 0 }, PERMISSION_TURN);
    try {
      const streaming = await openRawConnection(env.server.url, TOKEN);
      const held = await streaming.stream();
      const waiting = await turnWaitingForPermission(env.server, env.sandbox.project);
      const socket = await tryUpgrade(`${env.server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
      expect(socket.ok).toBe(true);
      const full = await tryUpgrade(`${env.server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
      expect(full).toMatchObject({ ok: false, status: 503, headers: { "retry-after": "5" } });
      expect(!full.ok && JSON.parse(full.body).error.code).toBe("connection_capacity");
      // Once its turn is over (and its stream closed again), the waiting connection is idle: it makes room.
      expect((await waiting.finish()).result.stopReason).toBe("end_turn");
      await waitForIdle(env.server, 1);
      const admitted = await tryUpgrade(`${env.server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
      expect(admitted.ok).toBe(true);
      expect(await waiting.connection.probe()).toBe(404);
      await expectWorking(streaming, held, env.sandbox.project);
      for (const r of [socket, admitted]) if (r.ok) r.ws.close();
    } finally {
      await env.close();
    }
  }, 90_000);

  test("idle connections close at their deadline as if deleted, sessions load again, streams and running turns hold theirs", async () => {
    const script = [...PERMISSION_TURN.slice(0, 1), { text: "first answer" }, ...PERMISSION_TURN.slice(1), { text: "after the reaping" }];
    const env = await setup(runtime, {}, script, ["--http-idle-timeout", "3", "--log-level", "info"]);
    const closedLines = () => env.server.proc.stderr().match(/closed Streamable HTTP connection \S+ after \d+ s idle\n/g) ?? [];
    try {
      // Opened first, so each would be closed first if its stream or its turn did not hold it.
      const streaming = await openRawConnection(env.server.url, TOKEN);
      const held = await streaming.stream();
      const waiting = await turnWaitingForPermission(env.server, env.sandbox.project);

      // A client that made a session, had a turn, and vanished without DELETE.
      const vanished = await openRawConnection(env.server.url, TOKEN);
      const events = await vanished.stream();
      await vanished.post({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: env.sandbox.project, mcpServers: [] } });
      const { sessionId } = (await events.next((m) => m.id === 1)).result;
      const sessionEvents = await vanished.stream(sessionId);
      await vanished.post({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "remember this" }] } }, sessionId);
      expect((await sessionEvents.next((m) => m.id === 2)).result.stopReason).toBe("end_turn");
      sessionEvents.close();
      events.close();

      // The rest of the 64 slots, abandoned.
      const abandoned = await abandon(env.server, 64 - 3);
      await waitFor(() => closedLines().length >= abandoned.length + 1, 60_000, "the idle connections to be closed");
      expect(closedLines().length).toBe(abandoned.length + 1);
      for (const connection of [vanished, abandoned[0]!, abandoned.at(-1)!]) expect(await connection.probe()).toBe(404);
      expect((await capabilities(env.server)).connections).toMatchObject({ open: 2, http: 2 });

      // The turn that waited all along goes on; the streaming client works; new clients of both kinds get in.
      expect((await waiting.finish()).result.stopReason).toBe("end_turn");
      const overWs = connectWs(`${env.server.wsUrl}/acp`, TOKEN);
      await initialize(overWs);
      const again = connectHttp(env.server.url, TOKEN);
      await initialize(again);
      // The vanished client's session loads on a new connection, history and all.
      await again.agent.request(methods.agent.session.load, { sessionId, cwd: env.sandbox.project, mcpServers: [] });
      expect(agentText(again.updates(sessionId))).toBe("first answer");
      expect((await again.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "still there?" }] })).stopReason).toBe("end_turn");
      expect(agentText(again.updates(sessionId))).toBe("first answerafter the reaping");
      await expectWorking(streaming, held, env.sandbox.project);
      for (const client of [overWs, again]) client.close();
    } finally {
      await env.close();
    }
  }, 120_000);

  // The one wait for time itself: Bun closes a socket silent for 10 s by default, event streams included.
  test("a client silent for 12 s keeps its event stream and its connection", async () => {
    const env = await setup(runtime, {}, [{ text: "still here" }]);
    try {
      const client = connectHttp(env.server.url, TOKEN);
      await initialize(client);
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: env.sandbox.project, mcpServers: [] });
      expect((await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason).toBe("end_turn");
      expect(agentText(client.updates(sessionId))).toBe("still here");
      client.close();
    } finally {
      await env.close();
    }
  }, 60_000);
});
