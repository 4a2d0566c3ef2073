/**
 * `agent serve` over real sockets on each runtime: health, the handshake
 * checks in their order, tokens, the echoed subprotocol, REST sessions and
 * generations, loopback binding and token files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, RUNTIMES, runAgentCommand, type Sandbox } from "../helpers/agent-process.ts";
import { bearer, startServe, SUBPROTOCOL, TOKEN, tryUpgrade, type ServeProcess } from "../helpers/serve-process.ts";

describe.each(RUNTIMES)("serve over HTTP on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: ServeProcess;

  beforeAll(async () => {
    sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ serve: { maxConnections: 3, maxClientsPerSession: 2, maxAttachedSessions: 1 } }));
    server = await startServe(runtime, sandbox);
  });
  afterAll(async () => {
    await server.stop();
    sandbox.cleanup();
  });

  const rest = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { ...init, headers: { ...bearer(TOKEN), "content-type": "application/json", ...(init.headers ?? {}) } });

  test("health and readiness need no token; capabilities need it and never show it", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: "ready" });
    const denied = await fetch(`${server.url}/v1/capabilities`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toContain("Bearer");
    expect((await denied.json()).error.code).toBe("unauthorized");
    const caps = await rest("/v1/capabilities");
    const text = await caps.text();
    expect(JSON.parse(text)).toMatchObject({ subprotocol: SUBPROTOCOL, protocolVersion: 1, limits: { maxConnections: 3, maxClientsPerSession: 2, maxAttachedSessions: 1, maxMessageBytes: 16777216 } });
    expect(text).not.toContain(TOKEN);
    expect(server.proc.stderr()).not.toContain(TOKEN);
    expect(server.proc.stderr()).toContain("bearer token: environment variable ACP_EDGE_TOKEN");
  });

  test("handshake failures in order: 401 → 404 → 426 (offers only other subprotocols) → 409 → 503", async () => {
    const noToken = await tryUpgrade(`${server.wsUrl}/nowhere`, { protocols: [SUBPROTOCOL] });
    expect(noToken).toMatchObject({ ok: false, status: 401 });
    expect(!noToken.ok && noToken.headers["www-authenticate"]).toContain("Bearer");
    expect(!noToken.ok && JSON.parse(noToken.body).error.code).toBe("unauthorized");
    const wrongToken = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer("wrong-token-0123456789") });
    expect(wrongToken).toMatchObject({ ok: false, status: 401 });

    const noRoute = await tryUpgrade(`${server.wsUrl}/nowhere`, { headers: bearer(TOKEN) });
    expect(noRoute).toMatchObject({ ok: false, status: 404 });
    const noSession = await tryUpgrade(`${server.wsUrl}/v1/session/sess_missing/apc`, { headers: bearer(TOKEN) });
    expect(noSession).toMatchObject({ ok: false, status: 404 });
    expect(!noSession.ok && JSON.parse(noSession.body).error.code).toBe("session_not_found");

    const otherProtocol = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: ["graphql-ws"], headers: bearer(TOKEN) });
    expect(otherProtocol).toMatchObject({ ok: false, status: 426 });
    expect(!otherProtocol.ok && JSON.parse(otherProtocol.body).error.code).toBe("acp_subprotocol_required");

    const created = await (await rest("/v1/sessions", { method: "POST", body: JSON.stringify({ cwd: sandbox.project, title: "capacity" }) })).json();
    const stale = await tryUpgrade(`${server.wsUrl}/v1/session/${created.id}/apc?generation=${created.generation + 1}`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(stale).toMatchObject({ ok: false, status: 409 });

    // Capacity: two clients per session, one attached session, three connections.
    const attach = (id: string) => tryUpgrade(`${server.wsUrl}/v1/session/${id}/apc`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    const first = await attach(created.id);
    const second = await attach(created.id);
    expect([first.ok, second.ok]).toEqual([true, true]);
    const third = await attach(created.id);
    expect(third).toMatchObject({ ok: false, status: 503 });
    expect(!third.ok && JSON.parse(third.body).error.code).toBe("session_client_capacity");
    const other = await (await rest("/v1/sessions", { method: "POST", body: JSON.stringify({ cwd: sandbox.project }) })).json();
    const otherSession = await attach(other.id);
    expect(!otherSession.ok && JSON.parse(otherSession.body).error.code).toBe("attached_session_capacity");
    const acp = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(acp.ok).toBe(true);
    const full = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(!full.ok && JSON.parse(full.body).error.code).toBe("connection_capacity");
    for (const r of [first, second, acp]) if (r.ok) r.ws.close();
    await new Promise((r) => setTimeout(r, 200));
  });

  test("the token works as a header or as a subprotocol entry, and the selected subprotocol is exactly agent-client-protocol.v1", async () => {
    const viaHeader = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(viaHeader).toMatchObject({ ok: true, protocol: SUBPROTOCOL });
    // The token entry offered first must never be echoed back.
    const viaProtocol = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [`acp.bearer.${TOKEN}`, SUBPROTOCOL] });
    expect(viaProtocol).toMatchObject({ ok: true, protocol: SUBPROTOCOL });
    for (const r of [viaHeader, viaProtocol]) if (r.ok) r.ws.close();
    await new Promise((r) => setTimeout(r, 200));
  });

  test("REST create by title → attach by title with its generation → delete → recreate → the old generation is stale", async () => {
    const first = await (await rest("/v1/sessions", { method: "POST", body: JSON.stringify({ cwd: sandbox.project, title: "release" }) })).json();
    expect(first).toMatchObject({ cwd: sandbox.project, title: "release", links: { apc: `/v1/session/${first.id}/apc` } });
    expect(Number.isSafeInteger(first.generation)).toBe(true);
    expect((await rest("/v1/sessions", { method: "POST", body: JSON.stringify({ cwd: sandbox.project, title: "release" }) })).status).toBe(409);
    expect((await (await rest("/v1/sessions/release")).json()).id).toBe(first.id);

    const attached = await tryUpgrade(`${server.wsUrl}/v1/session/release/apc?generation=${first.generation}`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(attached.ok).toBe(true);
    if (attached.ok) attached.ws.close();

    expect((await rest(`/v1/sessions/${first.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await rest(`/v1/sessions/${first.id}`)).status).toBe(404);
    const gone = await tryUpgrade(`${server.wsUrl}/v1/session/${first.id}/apc`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(gone).toMatchObject({ ok: false, status: 404 });

    const again = await (await rest("/v1/sessions", { method: "POST", body: JSON.stringify({ cwd: sandbox.project, title: "release" }) })).json();
    expect(again.generation).not.toBe(first.generation);
    const stale = await tryUpgrade(`${server.wsUrl}/v1/session/release/apc?generation=${first.generation}`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(stale).toMatchObject({ ok: false, status: 409 });
    expect(!stale.ok && JSON.parse(stale.body).error.code).toBe("stale_generation");

    const list = await (await rest(`/v1/sessions?cwd=${encodeURIComponent(sandbox.project)}`)).json();
    expect(list.sessions.map((s: { id: string }) => s.id)).toContain(again.id);
    expect((await rest("/v1/sessions", { method: "POST", body: "{not json" })).status).toBe(400);
    expect((await rest("/v1/sessions", { method: "POST", body: JSON.stringify({ cwd: "relative/dir" }) })).status).toBe(400);
    await new Promise((r) => setTimeout(r, 200));
  });
});

describe.each(RUNTIMES)("serve start-up on %s", (runtime) => {
  test("a non-loopback address needs --allow-remote; with it the plaintext is pointed out", async () => {
    const sandbox = makeSandbox();
    try {
      const refused = await runAgentCommand(runtime, ["agent", "serve", "--host", "0.0.0.0", "--port", "0"], { env: { ACP_EDGE_HOME: sandbox.home } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("--allow-remote");
      const server = await startServe(runtime, sandbox, { args: ["--host", "0.0.0.0", "--allow-remote"] });
      expect(server.proc.stderr()).toContain("plaintext");
      expect(await server.stop()).toBe(0);
    } finally {
      sandbox.cleanup();
    }
  });

  test("without a configured token one is created (0600) and reused; it is never printed", async () => {
    const sandbox = makeSandbox();
    try {
      const first = await startServe(runtime, sandbox, { env: { ACP_EDGE_TOKEN: undefined } });
      const path = join(sandbox.home, "api-token");
      const token = readFileSync(path, "utf8").trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(first.proc.stderr()).toContain(path);
      expect(first.proc.stderr()).not.toContain(token);
      expect((await fetch(`${first.url}/v1/capabilities`, { headers: bearer(token) })).status).toBe(200);
      await first.stop();
      const second = await startServe(runtime, sandbox, { env: { ACP_EDGE_TOKEN: undefined } });
      expect(readFileSync(path, "utf8").trim()).toBe(token);
      expect((await fetch(`${second.url}/v1/capabilities`, { headers: bearer(token) })).status).toBe(200);
      await second.stop();
    } finally {
      sandbox.cleanup();
    }
  });
});
