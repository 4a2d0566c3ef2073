/**
 * Where requests may come from, on each runtime, over raw sockets (so any
 * `Host` and `Origin` can be sent): on a loopback bind a foreign `Host` is
 * refused (403) on every route, upgrades included, before the token is
 * looked at — DNS rebinding; a web page's `Origin` other than the server's
 * own is refused on upgrades, Streamable HTTP and REST unless allowed with
 * `--allow-origin` or `serve.allowedOrigins`; CORS answers only what passes;
 * a non-loopback bind with `--allow-remote` answers any `Host`; bad values
 * of the flags and the setting are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, RUNTIMES, runAgentCommand, type Sandbox } from "../helpers/agent-process.ts";
import { answerJson, rawRequest, upgradeHeaders, type RawAnswer } from "../helpers/raw-http.ts";
import { bearer, startServe, SUBPROTOCOL, TOKEN, type ServeProcess } from "../helpers/serve-process.ts";

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
const refusal = (answer: RawAnswer) => ({ status: answer.status, code: answerJson(answer)?.error?.code });

describe.each(RUNTIMES)("request sources on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: ServeProcess;
  let port: string;
  beforeAll(async () => {
    sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ serve: { allowedOrigins: ["https://ide.example"] } }));
    server = await startServe(runtime, sandbox, { args: ["--model", "faux/echo", "--allow-origin", "http://localhost:3000"] });
    port = new URL(server.url).port;
  });
  afterAll(async () => {
    await server.stop();
    sandbox.cleanup();
  });

  const get = (path: string, headers: Record<string, string>) => rawRequest(server.url, { method: "GET", path, headers });
  const upgrade = (headers: Record<string, string>, protocols = [SUBPROTOCOL]) => get("/acp", { ...upgradeHeaders(protocols), ...headers });
  const initialize = (headers: Record<string, string>) => rawRequest(server.url, { path: "/acp", headers: { ...bearer(TOKEN), "Content-Type": "application/json", ...headers }, body: INITIALIZE });
  const leave = (id: string | undefined) => fetch(`${server.url}/acp`, { method: "DELETE", headers: { ...bearer(TOKEN), "acp-connection-id": id ?? "" } });

  test("a foreign Host is refused on every route, upgrades included, before the token; loopback names pass on any port", async () => {
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.evil.example:${port}`, `localhost.evil.example:${port}`, `[::2]:${port}`, `10.0.0.1:${port}`]) {
      for (const [path, headers] of [
        ["/healthz", {}],
        ["/", {}],
        ["/v1/capabilities", bearer(TOKEN)],
        ["/v1/capabilities", {}],
        ["/v1/sessions", bearer(TOKEN)],
      ] as const) {
        expect({ host, path, ...refusal(await get(path, { ...headers, Host: host })) }).toEqual({ host, path, status: 403, code: "host_not_allowed" });
      }
      expect({ host, ...refusal(await initialize({ Host: host })) }).toEqual({ host, status: 403, code: "host_not_allowed" });
      for (const headers of [{ ...bearer(TOKEN), Host: host }, { Host: host }]) {
        expect({ host, ...refusal(await upgrade(headers)) }).toEqual({ host, status: 403, code: "host_not_allowed" });
      }
    }
    // Hosts a runtime may already refuse itself (400): never answered either way.
    for (const host of ["", `localhost@evil.example:${port}`, `evil.example:${port}/x`]) {
      const answer = await get("/v1/capabilities", { ...bearer(TOKEN), Host: host });
      expect({ host, refused: answer.status === 403 || answer.status === 400 }).toEqual({ host, refused: true });
    }
    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `127.0.0.1:${port}`, `127.0.0.2:${port}`, `[::1]:${port}`, "localhost", "localhost:9000"]) {
      expect({ host, status: (await get("/v1/capabilities", { ...bearer(TOKEN), Host: host })).status }).toEqual({ host, status: 200 });
    }
    expect((await upgrade({ ...bearer(TOKEN), Host: `localhost:${port}` })).status).toBe(101);
  });

  test("a refused Host's message quotes it only as an excerpt", async () => {
    const answer = await get("/healthz", { Host: `${"e".repeat(4000)}.example` });
    expect(refusal(answer)).toEqual({ status: 403, code: "host_not_allowed" });
    expect(answer.bodyBytes).toBeLessThan(400);
  });

  test("WebSocket upgrades: the server's own origin and allowed ones pass; any other is refused before the token", async () => {
    for (const origin of [`http://127.0.0.1:${port}`, "http://localhost:3000", "https://ide.example", "HTTPS://IDE.EXAMPLE:443"]) {
      expect({ origin, status: (await upgrade({ ...bearer(TOKEN), Origin: origin })).status }).toEqual({ origin, status: 101 });
    }
    // The console's page offers the token as a subprotocol entry, from its own origin.
    expect((await upgrade({ Origin: `http://127.0.0.1:${port}` }, [SUBPROTOCOL, `acp.bearer.${TOKEN}`])).status).toBe(101);
    for (const origin of ["https://evil.example", "http://localhost:3001", `http://localhost:${port}`, `https://127.0.0.1:${port}.evil.example`, "http://ide.example", "null", "file://", `http://127.0.0.1:${port}/path`]) {
      for (const headers of [{ ...bearer(TOKEN), Origin: origin }, { Origin: origin }]) {
        expect({ origin, ...refusal(await upgrade(headers)) }).toEqual({ origin, status: 403, code: "origin_not_allowed" });
      }
    }
  });

  test("Streamable HTTP and REST: a foreign origin is refused, preflights included; CORS answers allowed origins only", async () => {
    expect(refusal(await initialize({ Origin: "https://evil.example" }))).toEqual({ status: 403, code: "origin_not_allowed" });
    const allowed = await initialize({ Origin: "http://localhost:3000" });
    expect(allowed.status).toBe(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe("http://localhost:3000");
    expect((await leave(allowed.headers["acp-connection-id"])).status).toBe(202);

    expect(refusal(await get("/v1/sessions", { ...bearer(TOKEN), Origin: "https://evil.example" }))).toEqual({ status: 403, code: "origin_not_allowed" });
    const preflight = (origin: string) =>
      rawRequest(server.url, { method: "OPTIONS", path: "/v1/sessions", headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" } });
    const refusedPreflight = await preflight("https://evil.example");
    expect(refusedPreflight.status).toBe(403);
    expect(refusedPreflight.headers["access-control-allow-origin"]).toBeUndefined();
    const allowedPreflight = await preflight("https://ide.example");
    expect(allowedPreflight.status).toBe(204);
    expect(allowedPreflight.headers["access-control-allow-origin"]).toBe("https://ide.example");
    expect((await get("/v1/sessions", { ...bearer(TOKEN), Origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });
});

describe.each(RUNTIMES)("request source settings on %s", (runtime) => {
  test("a non-loopback bind with --allow-remote answers any Host, and still checks Origin", async () => {
    const sandbox = makeSandbox();
    try {
      const server = await startServe(runtime, sandbox, { args: ["--model", "faux/echo", "--host", "0.0.0.0", "--allow-remote"] });
      const url = server.url.replace("0.0.0.0", "127.0.0.1");
      expect((await rawRequest(url, { method: "GET", path: "/healthz", headers: { Host: "acp-edge.internal:8711" } })).status).toBe(200);
      expect((await rawRequest(url, { method: "GET", path: "/v1/capabilities", headers: { ...bearer(TOKEN), Host: "acp-edge.internal:8711" } })).status).toBe(200);
      expect(refusal(await rawRequest(url, { method: "GET", path: "/v1/capabilities", headers: { ...bearer(TOKEN), Origin: "https://evil.example" } }))).toEqual({ status: 403, code: "origin_not_allowed" });
      await server.stop();
    } finally {
      sandbox.cleanup();
    }
  });

  test("bad --allow-origin and --http-idle-timeout values exit 2 with the reason; a bad origin in settings is refused", async () => {
    const sandbox = makeSandbox();
    try {
      for (const [flag, value] of [
        ["--allow-origin", "http://localhost:3000/path"],
        ["--allow-origin", "localhost:3000"],
        ["--allow-origin", "ftp://example.com"],
        ["--allow-origin", "*"],
        ["--allow-origin", "http://user@example.com"],
        ["--http-idle-timeout", "0"],
        ["--http-idle-timeout", "-5"],
        ["--http-idle-timeout", "soon"],
        ["--http-idle-timeout", "100000"],
      ] as const) {
        const result = await runAgentCommand(runtime, ["agent", "serve", "--port", "0", `${flag}=${value}`], { env: { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_TOKEN: TOKEN } });
        expect({ flag, value, code: result.code }).toEqual({ flag, value, code: 2 });
        expect(result.stderr).toContain(flag);
      }
      writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ serve: { allowedOrigins: ["https://ide.example/app"] } }));
      const result = await runAgentCommand(runtime, ["agent", "serve", "--port", "0"], { env: { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_TOKEN: TOKEN } });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("allowedOrigins");
    } finally {
      sandbox.cleanup();
    }
  });
});
