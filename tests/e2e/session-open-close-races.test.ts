/**
 * Opening and closing one stored session from several requests at once: two
 * `session/load`s racing for a closed session share one opening (its journal
 * is never open twice, so nothing is left for the garbage collector to close),
 * and a client that attaches while the last one is leaving waits for the close
 * and gets the session back instead of "already open in this process".
 * Both were found by the transport fuzzer.
 */
import { describe, expect, test } from "bun:test";
import WebSocket from "ws";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { bearer, rawSocket, SUBPROTOCOL, startServe, TOKEN, tryUpgrade, createStoredSession } from "../helpers/serve-process.ts";
import { startAgent } from "../helpers/session-agent.ts";

const { methods } = acp;

describe.each(RUNTIMES)("session open/close races on %s", (runtime) => {
  test("concurrent loads of a closed session: both answered, one journal, the agent stays up", async () => {
    const sandbox = makeSandbox();
    const agent = await startAgent(runtime, sandbox, { args: ["--model", "faux/echo"] });
    try {
      const { sessionId } = await agent.newSession();
      const load = () => agent.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      for (let round = 0; round < 60; round++) {
        await agent.client.agent.request(methods.agent.session.close, { sessionId });
        const outcomes = await Promise.allSettled([load(), load(), load()]);
        expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
      }
      const { stopReason } = await agent.prompt(sessionId, "still here");
      expect(stopReason).toBe("end_turn");
      expect(await agent.stop()).toBe(0);
    } finally {
      await agent.kill().catch(() => undefined);
      sandbox.cleanup();
    }
  }, 120_000);

  test("/apc: a client attaching as the last one drops mid-prompt gets the session", async () => {
    const sandbox = makeSandbox();
    const server = await startServe(runtime, sandbox, { args: ["--model", "faux/echo"] });
    try {
      const id = await createStoredSession(server, sandbox.project);
      const url = `${server.wsUrl}/v1/session/${id}/apc`;
      const attach = async () => {
        const upgrade = await tryUpgrade(url, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
        if (!upgrade.ok) throw new Error(`upgrade refused: ${upgrade.status}`);
        const socket = rawSocket(upgrade.ws);
        socket.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
        socket.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: sandbox.project, mcpServers: [] } });
        return { ws: upgrade.ws as WebSocket, joined: await socket.response(2), socket };
      };
      for (let round = 0; round < 30; round++) {
        const first = await attach();
        expect(first.joined.error).toBeUndefined();
        // Prompt, then vanish without waiting: the session is released while its turn is cancelled.
        first.socket.send({ jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId: id, prompt: [{ type: "text", text: "hi" }] } });
        first.ws.terminate();
        // Attach the moment the server has seen the socket go, while the session is released. Attached
        // before that, the second client would share a live session whose first turn still runs, and
        // its prompt would wait in the queue behind that turn: a different case from the one tested here.
        for (const started = Date.now(); ; ) {
          const open = (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()).connections.open;
          if (open === 0) break;
          if (Date.now() - started > 10_000) throw new Error("the server did not see the first socket close");
        }
        const second = await attach();
        expect(second.joined.error).toBeUndefined();
        // It joined a session that is open for good, not one on its way out.
        second.socket.send({ jsonrpc: "2.0", id: 4, method: "session/prompt", params: { sessionId: id, prompt: [{ type: "text", text: "again" }] } });
        const answer = await second.socket.response(4);
        expect(answer.error).toBeUndefined();
        expect(answer.result.stopReason).toBe("end_turn");
        second.ws.close();
        await second.socket.closed;
      }
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop("SIGKILL");
      sandbox.cleanup();
    }
  }, 120_000);
});
