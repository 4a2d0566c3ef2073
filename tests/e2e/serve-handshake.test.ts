/**
 * The handshake middleware of the app on each runtime: every refusal keeps
 * its status, headers and JSON body; a client that offers no subprotocol is
 * served without one, one that offers several gets `agent-client-protocol.v1`
 * when it is among them, and the token entry is never echoed, whatever its
 * place; one that offers only others is refused 426; a TCP
 * reset while an upgrade is being decided leaves the server up; and SIGTERM
 * at each moment of start-up ends the process with 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { makeSandbox, RUNTIMES, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { bearer, rawSocket, startServe, SUBPROTOCOL, TOKEN, tryUpgrade, type ServeProcess } from "../helpers/serve-process.ts";

describe.each(RUNTIMES)("serve handshake on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: ServeProcess;
  beforeAll(async () => {
    sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ serve: { maxConnections: 1 } }));
    server = await startServe(runtime, sandbox);
  });
  afterAll(async () => {
    await server.stop();
    sandbox.cleanup();
  });

  const expectRefusal = async (result: Awaited<ReturnType<typeof tryUpgrade>>, status: number, code: string, headers: Record<string, string | RegExp> = {}) => {
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.status).toBe(status);
    expect(result.headers["content-type"]).toContain("application/json");
    for (const [name, value] of Object.entries(headers)) expect(String(result.headers[name])).toMatch(value);
    // The body is written by our own upgrade listener on Node (node-server sends none): an empty one means that broke.
    expect({ status, bodyBytes: Buffer.byteLength(result.body) > 0 }).toEqual({ status, bodyBytes: true });
    expect(result.headers["content-length"]).toBe(String(Buffer.byteLength(result.body)));
    expect(JSON.parse(result.body).error.code).toBe(code);
  };

  test("every refusal keeps its status, headers and JSON body", async () => {
    const ws = server.wsUrl;
    await expectRefusal(await tryUpgrade(`${ws}/acp`, { protocols: [SUBPROTOCOL] }), 401, "unauthorized", { "www-authenticate": /^Bearer realm="acp-edge"$/ });
    await expectRefusal(await tryUpgrade(`${ws}/acp`, { protocols: [SUBPROTOCOL, "acp.bearer.not-the-token-000000"] }), 401, "unauthorized", { "www-authenticate": /Bearer/ });
    // An ordinary route asked to upgrade is not a WebSocket route.
    await expectRefusal(await tryUpgrade(`${ws}/healthz`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) }), 404, "route_not_found");
    await expectRefusal(await tryUpgrade(`${ws}/v1/session/no-such-session/apc`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) }), 404, "session_not_found");
    await expectRefusal(await tryUpgrade(`${ws}/acp`, { protocols: ["something.else"], headers: bearer(TOKEN) }), 426, "acp_subprotocol_required", { "sec-websocket-protocol": /^agent-client-protocol\.v1$/ });
    // The token entry alone is no subprotocol the server may answer with: refused, never echoed.
    await expectRefusal(await tryUpgrade(`${ws}/acp`, { protocols: [`acp.bearer.${TOKEN}`] }), 426, "acp_subprotocol_required", { "sec-websocket-protocol": /^agent-client-protocol\.v1$/ });
    const created = await (
      await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project }) })
    ).json();
    await expectRefusal(await tryUpgrade(`${ws}/v1/session/${created.id}/apc?generation=x`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) }), 409, "stale_generation");
    const held = await tryUpgrade(`${ws}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(held.ok).toBe(true);
    await expectRefusal(await tryUpgrade(`${ws}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) }), 503, "connection_capacity", { "retry-after": /^5$/ });
    if (held.ok) held.ws.close();
    await waitFor(async () => (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()).connections.open === 0, 5000, "the socket to close");
  });

  test("the token entry offered first is never echoed: the selected subprotocol is agent-client-protocol.v1 on both routes", async () => {
    const created = await (
      await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project }) })
    ).json();
    for (const path of ["/acp", `/v1/session/${created.id}/apc`]) {
      const opened = await tryUpgrade(`${server.wsUrl}${path}`, { protocols: [`acp.bearer.${TOKEN}`, SUBPROTOCOL] });
      expect(opened).toMatchObject({ ok: true, protocol: SUBPROTOCOL });
      if (opened.ok) opened.ws.close();
      await waitFor(async () => (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()).connections.open === 0, 5000, "the socket to close");
    }
  });

  test("subprotocol negotiation: none offered is served with none; ours among several is selected; never a token entry", async () => {
    const created = await (
      await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project }) })
    ).json();
    const cases: Array<[string[] | undefined, string]> = [
      [undefined, ""],
      [["graphql-ws", SUBPROTOCOL, "wamp"], SUBPROTOCOL],
      [[SUBPROTOCOL, `acp.bearer.${TOKEN}`], SUBPROTOCOL],
      [[`acp.bearer.${TOKEN}`, "other.v2", SUBPROTOCOL], SUBPROTOCOL],
    ];
    for (const path of ["/acp", `/v1/session/${created.id}/apc`]) {
      for (const [protocols, selected] of cases) {
        const viaHeader = !protocols?.some((p) => p.startsWith("acp.bearer."));
        const opened = await tryUpgrade(`${server.wsUrl}${path}`, { ...(protocols ? { protocols } : {}), ...(viaHeader ? { headers: bearer(TOKEN) } : {}) });
        expect({ path, protocols, opened: opened.ok, protocol: opened.ok ? opened.protocol : undefined }).toEqual({ path, protocols, opened: true, protocol: selected });
        if (!opened.ok) continue;
        // A working ACP connection either way.
        const rpc = rawSocket(opened.ws);
        rpc.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
        expect((await rpc.response(1)).result.protocolVersion).toBe(1);
        opened.ws.close();
        await rpc.closed;
        await waitFor(async () => (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()).connections.open === 0, 5000, "the socket to close");
      }
    }
  });

  test("upgrades decided at the same moment never pass the limit together: one of twelve is let in", async () => {
    const created = await (
      await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project }) })
    ).json();
    for (const path of ["/acp", `/v1/session/${created.id}/apc`]) {
      const results = await Promise.all(Array.from({ length: 12 }, () => tryUpgrade(`${server.wsUrl}${path}`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) })));
      const opened = results.filter((r) => r.ok);
      const refused = results.filter((r) => !r.ok).map((r) => (r.ok ? "" : `${r.status} ${JSON.parse(r.body).error.code}`));
      expect({ path, opened: opened.length, refused }).toEqual({ path, opened: 1, refused: Array(11).fill("503 connection_capacity") });
      for (const r of opened) if (r.ok) r.ws.close();
      await waitFor(async () => (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()).connections.open === 0, 5000, "the socket to close");
    }
  });

  test("at capacity, a client that connects again as soon as its socket has closed is let in, every time", async () => {
    // Each connection opens a session, so winding it down after the close (turns, the session's release) takes a while.
    for (let i = 0; i < 10; i += 1) {
      const opened = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
      if (!opened.ok) throw new Error(`attempt ${i}: refused with ${opened.status} ${opened.body}`);
      const rpc = rawSocket(opened.ws);
      rpc.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
      await rpc.response(1);
      rpc.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: sandbox.project, mcpServers: [] } });
      expect((await rpc.response(2)).result.sessionId).toBeString();
      opened.ws.close();
      await rpc.closed;
    }
    const last = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(last.ok).toBe(true);
    if (last.ok) {
      last.ws.close();
      await rawSocket(last.ws).closed;
    }
  });

  /** Sends an upgrade request with the token on a raw socket and resets the connection as soon as it is written. */
  const upgradeThenReset = (path: string) =>
    new Promise<void>((resolve) => {
      const target = new URL(server.url);
      const socket = connect(Number(target.port), target.hostname, () => {
        socket.write(
          [
            `GET ${path} HTTP/1.1`,
            `Host: ${target.host}`,
            "Upgrade: websocket",
            "Connection: Upgrade",
            `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
            "Sec-WebSocket-Version: 13",
            `Sec-WebSocket-Protocol: ${SUBPROTOCOL}`,
            `Authorization: Bearer ${TOKEN}`,
            "",
            "",
          ].join("\r\n"),
          () => {
            // RST rather than FIN where the runtime can, while the server is still deciding or upgrading.
            const reset = (socket as unknown as { resetAndDestroy?: () => void }).resetAndDestroy;
            if (reset) reset.call(socket);
            else socket.destroy();
            resolve();
          },
        );
      });
      socket.on("error", () => resolve());
    });

  test("a TCP reset while an upgrade is being decided leaves the server up", async () => {
    for (let i = 0; i < 20; i += 1) await upgradeThenReset(`/v1/session/${i % 2 ? "some-title" : "sess_x"}/apc`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const opened = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(opened.ok).toBe(true);
    if (opened.ok) opened.ws.close();
    expect(server.proc.child.exitCode).toBeNull();
  });

  const openConnections = async () => (await (await fetch(`${server.url}/v1/capabilities`, { headers: bearer(TOKEN) })).json()).connections.open as number;

  /** Writes one request on a raw socket, kept open, and resolves with the status line's code once the answer starts. */
  const rawRequest = (lines: string[]) =>
    new Promise<{ status: number; socket: ReturnType<typeof connect> }>((resolve, reject) => {
      const target = new URL(server.url);
      const socket = connect(Number(target.port), target.hostname, () => socket.write([...lines.map((l) => l.replace("{host}", target.host)), "", ""].join("\r\n")));
      socket.once("data", (chunk) => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1] ?? 0), socket }));
      socket.on("error", reject);
    });

  test("a client gone in the middle of an upgrade it was let in for gives its place back at once", async () => {
    // The place is held from the decision; whether the socket opened and closed or the runtime dropped the
    // upgrade, the place is free again long before the 10 s deadline that catches what no runtime reports.
    for (let i = 0; i < 5; i += 1) {
      await upgradeThenReset("/acp");
      await waitFor(async () => (await openConnections()) === 0, 3_000, `the place to come back after reset ${i}`);
    }
    const opened = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
    expect(opened.ok).toBe(true);
    if (opened.ok) {
      opened.ws.close();
      await rawSocket(opened.ws).closed;
    }
  }, 30_000);

  test("upgrade requests the runtime cannot complete hold no place, even on a connection kept open", async () => {
    const base = ["Host: {host}", "Upgrade: websocket", `Sec-WebSocket-Protocol: ${SUBPROTOCOL}`, `Authorization: Bearer ${TOKEN}`];
    const key = `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`;
    const cases: Array<[string, string[]]> = [
      ["no Connection: Upgrade", ["GET /acp HTTP/1.1", ...base, key, "Sec-WebSocket-Version: 13"]],
      ["no key", ["GET /acp HTTP/1.1", ...base, "Connection: Upgrade", "Sec-WebSocket-Version: 13"]],
      ["an unknown version", ["GET /acp HTTP/1.1", ...base, "Connection: Upgrade", key, "Sec-WebSocket-Version: 99"]],
      ["a POST", ["POST /acp HTTP/1.1", ...base, "Connection: Upgrade", key, "Sec-WebSocket-Version: 13", "Content-Length: 0"]],
    ];
    for (const [name, lines] of cases) {
      const { status, socket } = await rawRequest(lines);
      try {
        // Refused, or (Bun is lenient about a missing Connection header) upgraded after all: then it is an open
        // connection like any other, and closing it gives the place back.
        expect({ name, answered: status >= 400 || status === 101 }).toEqual({ name, answered: true });
        if (status === 101) socket.destroy();
        await waitFor(async () => (await openConnections()) === 0, 3_000, `the place to come back after ${name}`);
        const opened = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
        expect({ name, opened: opened.ok }).toEqual({ name, opened: true });
        if (opened.ok) {
          opened.ws.close();
          await rawSocket(opened.ws).closed;
        }
        await waitFor(async () => (await openConnections()) === 0, 5_000, "the socket to close");
      } finally {
        socket.destroy();
      }
    }
  }, 30_000);
});

describe.each(RUNTIMES)("serve start-up signals on %s", (runtime) => {
  // Each moment: the "listening" line, and the token line right after it.
  const moments: Array<[string, RegExp]> = [
    ["as soon as it listens", /listening on /],
    ["once it has said where the token comes from", /bearer token: .*\n/],
  ];
  for (const [moment, line] of moments) {
    test(`SIGTERM ${moment} exits 0, every time`, async () => {
      const sandbox = makeSandbox();
      try {
        for (let i = 0; i < 5; i += 1) {
          const proc = spawnAgent(runtime, ["agent", "serve", "--port", "0", "--model", "faux/script"], { env: { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_TOKEN: TOKEN } });
          await waitFor(() => line.test(proc.stderr()) || proc.child.exitCode !== null, 20_000, "the start-up line");
          proc.child.kill("SIGTERM");
          const exit = await proc.exited;
          expect({ attempt: i, code: exit.code, signal: exit.signal }).toEqual({ attempt: i, code: 0, signal: null });
        }
      } finally {
        sandbox.cleanup();
      }
    }, 120_000);
  }
});
