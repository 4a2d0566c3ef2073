/**
 * Several clients attaching to one stored session at once over
 * `/v1/session/{ref}/apc`: a client whose `session/new` is refused (a cwd or
 * an extra directory that does not fit) gets its own error, and the clients
 * that asked at the same moment with the right cwd are attached all the same.
 * The seeded WebSocket fuzzer once found the second client refused with the
 * first one's error.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { bearer, createStoredSession, rawSocket, startServe, SUBPROTOCOL, TOKEN, tryUpgrade, type ServeProcess } from "../helpers/serve-process.ts";

describe.each(RUNTIMES)("attaching to one /apc session at once on %s", (runtime) => {
  let sandbox: Sandbox | undefined;
  let server: ServeProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    sandbox?.cleanup();
  });

  test("a refused attach does not refuse the clients attaching beside it", async () => {
    sandbox = makeSandbox();
    server = await startServe(runtime, sandbox, { args: ["--model", "faux/echo"] });
    const created = { id: await createStoredSession(server, sandbox.project) };
    const wrongParams = [
      { cwd: `${sandbox.project}/..`, mcpServers: [] },
      { cwd: sandbox.project, additionalDirectories: ["/nonexistent-directory-for-this-test"], mcpServers: [] },
    ];
    for (let round = 0; round < 4; round++) {
      const sockets = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const upgraded = await tryUpgrade(`${server!.wsUrl}/v1/session/${created.id}/apc`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
          if (!upgraded.ok) throw new Error(`upgrade refused: ${upgraded.status} ${upgraded.body}`);
          return { ws: upgraded.ws, rpc: rawSocket(upgraded.ws) };
        }),
      );
      for (const { rpc } of sockets) rpc.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
      await Promise.all(sockets.map(({ rpc }) => rpc.response(1)));
      // The wrong ones first, the right ones right behind them, all before any answer.
      sockets.forEach(({ rpc }, i) => {
        const params = i < wrongParams.length ? wrongParams[i] : { cwd: sandbox!.project, mcpServers: [] };
        rpc.send({ jsonrpc: "2.0", id: 2, method: "session/new", params });
      });
      const answers = await Promise.all(sockets.map(({ rpc }) => rpc.response(2)));
      expect(answers[0].error?.code).toBe(-32602);
      expect(answers[0].error?.data?.cwd).toBe(`${sandbox.project}/..`);
      expect(answers[1].error?.code).toBe(-32602);
      expect(JSON.stringify(answers[1].error)).toContain("nonexistent-directory-for-this-test");
      for (const answer of answers.slice(2)) {
        expect(answer.error).toBeUndefined();
        expect(answer.result.sessionId).toBe(created.id);
      }
      await Promise.all(
        sockets.map(async ({ ws, rpc }) => {
          ws.close();
          await rpc.closed;
        }),
      );
    }
  }, 60_000);

  test("a client joining an open session cannot change its extra roots; naming the same ones or none is fine", async () => {
    sandbox = makeSandbox();
    server = await startServe(runtime, sandbox, { args: ["--model", "faux/echo"] });
    const created = { id: await createStoredSession(server, sandbox.project) };
    const attach = async (params: Record<string, unknown>) => {
      const upgraded = await tryUpgrade(`${server!.wsUrl}/v1/session/${created.id}/apc`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
      if (!upgraded.ok) throw new Error(`upgrade refused: ${upgraded.status}`);
      const rpc = rawSocket(upgraded.ws);
      rpc.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
      await rpc.response(1);
      rpc.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: sandbox!.project, mcpServers: [], ...params } });
      return { ws: upgraded.ws, answer: await rpc.response(2) };
    };
    const first = await attach({});
    expect(first.answer.error).toBeUndefined();
    const widened = await attach({ additionalDirectories: [sandbox.home] });
    expect(widened.answer.error?.code).toBe(-32602);
    expect(widened.answer.error?.message).toContain("cannot change them");
    expect(widened.answer.error?.data?.sessionAdditionalDirectories).toEqual([]);
    const same = await attach({ additionalDirectories: [] });
    expect(same.answer.error).toBeUndefined();
    for (const socket of [first, widened, same]) socket.ws.close();
  }, 60_000);
});
