/**
 * Deleting a session closes its `/apc` clients with 1001, however the delete
 * is asked for: ACP `session/delete` on an `/acp` connection as the REST
 * API's `DELETE /v1/sessions/{ref}` does, on every runtime.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { initialize, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { bearer, connectWs, rawSocket, startServe, SUBPROTOCOL, TOKEN, tryUpgrade, type ServeProcess } from "../helpers/serve-process.ts";

describe.each(RUNTIMES)("deleting a session over serve on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: ServeProcess;

  beforeAll(async () => {
    sandbox = makeSandbox();
    server = await startServe(runtime, sandbox);
  });
  afterAll(async () => {
    await server.stop();
    sandbox.cleanup();
  });

  const rest = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { ...init, headers: { ...bearer(TOKEN), "content-type": "application/json", ...(init.headers ?? {}) } });

  /** A new session with one `/apc` client attached; resolves with its id and the client's close. */
  async function attachedSession(): Promise<{ id: string; closed: Promise<{ code: number; reason: string }> }> {
    const session = await (await rest("/v1/sessions", { method: "POST", body: JSON.stringify({ cwd: sandbox.project }) })).json();
    const upgrade = await tryUpgrade(`${server.wsUrl}/v1/session/${session.id}/apc?generation=${session.generation}`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    if (!upgrade.ok) throw new Error(`the /apc upgrade failed: ${upgrade.status}`);
    const raw = rawSocket(upgrade.ws);
    upgrade.ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } }));
    upgrade.ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/resume", params: { sessionId: session.id, cwd: sandbox.project, mcpServers: [] } }));
    // Attached once its resume is answered.
    while (!raw.received.some((m) => m.id === 2)) await new Promise((resolve) => upgrade.ws.once("message", resolve));
    expect(raw.received.find((m) => m.id === 2).error).toBeUndefined();
    return { id: session.id, closed: raw.closed };
  }

  test("ACP session/delete closes the session's /apc clients with 1001, as REST DELETE does", async () => {
    const viaAcp = await attachedSession();
    const client = connectWs(`${server.wsUrl}/acp`, TOKEN);
    await initialize(client);
    expect(await client.agent.request(acp.methods.agent.session.delete, { sessionId: viaAcp.id })).toEqual({});
    expect(await viaAcp.closed).toEqual({ code: 1001, reason: "the session was deleted" });
    expect((await rest(`/v1/sessions/${viaAcp.id}`)).status).toBe(404);
    client.close();

    const viaRest = await attachedSession();
    expect((await rest(`/v1/sessions/${viaRest.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await viaRest.closed).toEqual({ code: 1001, reason: "the session was deleted" });
  });
});
