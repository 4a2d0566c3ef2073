/**
 * The unstable session methods with several clients on one session, through
 * `agent serve` on each runtime: a title set by one client is shown to every
 * attached client; archiving from one closes the session for all of them
 * (a running turn answered `cancelled`, the others told, later requests
 * `-32002`) and hides it from `session/list` and `GET /v1/sessions`.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { initialize, acp, type TestClient } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { bearer, connectWs, createStoredSession, startServe, TOKEN } from "../helpers/serve-process.ts";

const { methods } = acp;

const call = (client: TestClient, method: string, params: Record<string, unknown>) =>
  (client.agent.request as (m: string, p: unknown) => Promise<any>)(method, params);

describe.each(RUNTIMES)("the session surface shared through serve on %s", (runtime) => {
  test("a title reaches every client; archiving from one ends the session for all and hides it; unarchive shows it again", async () => {
    const sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ approvalMode: "yolo" }));
    const script = sandbox.write("script.json", JSON.stringify([{ toolCalls: [{ id: "slow", name: "bash", input: { command: "sleep 30" } }] }]));
    const server = await startServe(runtime, sandbox, { script });
    const alice = connectWs(`${server.wsUrl}/acp`, TOKEN);
    const bob = connectWs(`${server.wsUrl}/acp`, TOKEN);
    try {
      await initialize(alice);
      await initialize(bob);
      const { sessionId } = await alice.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      await bob.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
      const apcId = await createStoredSession(server, sandbox.project);

      expect(await call(alice, "session/set_title", { sessionId, title: "Shared plan" })).toEqual({ title: "Shared plan" });
      for (const client of [alice, bob]) {
        await waitFor(() => client.updates(sessionId).some((u) => u.sessionUpdate === "session_info_update" && u.title === "Shared plan"), 10_000, "the title");
      }

      const turn = bob.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "run it" }] });
      await waitFor(() => bob.updates(sessionId).some((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress"), 20_000, "the command");
      expect(await call(alice, "session/archive", { sessionId })).toEqual({});
      expect((await turn).stopReason).toBe("cancelled");
      expect(JSON.stringify(bob.updates(sessionId))).toContain("This session was archived");
      // Not told to the client that asked.
      expect(JSON.stringify(alice.updates(sessionId))).not.toContain("This session was archived");
      for (const client of [alice, bob]) await rpcError(client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "x" }] }), -32002);
      expect(await call(bob, "session/status", { sessionId })).toEqual({ status: "saved" });

      const listed = async (query = "") => ((await (await fetch(`${server.url}/v1/sessions${query}`, { headers: bearer(TOKEN) })).json()) as { sessions: Array<{ id: string; archived: boolean }> }).sessions;
      expect((await listed()).map((s) => s.id)).toEqual([apcId]);
      expect((await listed("?archived=only")).map((s) => [s.id, s.archived])).toEqual([[sessionId, true]]);
      expect((await listed("?archived=include")).map((s) => s.id).sort()).toEqual([apcId, sessionId].sort());
      expect((await fetch(`${server.url}/v1/sessions?archived=everything`, { headers: bearer(TOKEN) })).status).toBe(400);
      expect((await bob.agent.request(methods.agent.session.list, {})).sessions.map((s) => s.sessionId)).toEqual([apcId]);
      // The archived session is still reachable by its title.
      expect((await fetch(`${server.url}/v1/sessions/Shared%20plan`, { headers: bearer(TOKEN) })).status).toBe(200);

      expect(await call(bob, "session/unarchive", { sessionId })).toEqual({});
      expect((await listed()).map((s) => s.id).sort()).toEqual([apcId, sessionId].sort());

      // A connection scoped to one session reaches that session only.
      const scoped = connectWs(`${server.wsUrl}/v1/session/${apcId}/apc`, TOKEN);
      try {
        await initialize(scoped);
        await rpcError(call(scoped, "session/set_title", { sessionId, title: "elsewhere" }), -32602);
        await rpcError(call(scoped, "session/archive", { sessionId }), -32602);
        expect(await call(scoped, "session/status", { sessionId: apcId })).toEqual({ status: "saved" });
        expect(await call(scoped, "session/set_title", { sessionId: apcId, title: "Scoped" })).toEqual({ title: "Scoped" });
      } finally {
        scoped.close();
      }
    } finally {
      alice.close();
      bob.close();
      await server.stop("SIGKILL");
      sandbox.cleanup();
    }
  }, 90_000);
});
