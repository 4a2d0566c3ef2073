/**
 * `acp-edge agent serve --port 0` under a runtime, with its URL read from
 * the start-up line on stderr, and WebSocket helpers built on `ws`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";
import { connectStream, type ClientOptions, type TestClient } from "./acp-client.ts";
import { makeSandbox, spawnAgent, type AgentProcess, type Launcher, type RuntimeName, type Sandbox } from "./agent-process.ts";
import { waitFor } from "./expect-error.ts";

export const SUBPROTOCOL = "agent-client-protocol.v1";
export const TOKEN = "test-token-0123456789abcdef-XYZ";

export interface ServeProcess {
  proc: AgentProcess;
  url: string;
  wsUrl: string;
  token: string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startServe(
  runtime: RuntimeName | Launcher,
  sandbox: Sandbox,
  options: { args?: string[]; env?: Record<string, string | undefined>; script?: string } = {},
): Promise<ServeProcess> {
  const env: Record<string, string | undefined> = { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_TOKEN: TOKEN, ...(options.env ?? {}) };
  if (options.script) env.ACP_EDGE_FAUX_SCRIPT = options.script;
  const proc = spawnAgent(runtime, ["agent", "serve", "--port", "0", ...(options.args ?? ["--model", "faux/script"])], { env });
  // Both start-up lines: where it listens, then where the token comes from.
  await waitFor(() => /bearer token: .*\n/.test(proc.stderr()) || proc.child.exitCode !== null, 20_000, "the server to listen");
  const url = /listening on (http:\/\/\S+)/.exec(proc.stderr())?.[1];
  if (!url) throw new Error(`the server did not start: ${proc.stderr()}`);
  return {
    proc,
    url,
    wsUrl: url.replace(/^http/, "ws"),
    token: env.ACP_EDGE_TOKEN ?? "",
    async stop(signal = "SIGTERM") {
      proc.child.kill(signal);
      return (await proc.exited).code;
    },
  };
}

/** A fresh sandbox with these settings and a server playing this faux script; `close` kills it and cleans up. */
export async function startScriptedServe(runtime: RuntimeName, script: unknown[], settings: Record<string, unknown> = {}, args: string[] = []) {
  const sandbox = makeSandbox();
  writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify(settings));
  const server = await startServe(runtime, sandbox, { args: ["--model", "faux/script", ...args], script: sandbox.write("script.json", JSON.stringify(script)) });
  return {
    sandbox,
    server,
    async close() {
      await server.stop("SIGKILL");
      sandbox.cleanup();
    },
  };
}

export type UpgradeResult =
  | { ok: true; ws: WebSocket; protocol: string }
  | { ok: false; status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** Tries a WebSocket upgrade and reports either the open socket or the refusal (status, headers, body). */
export function tryUpgrade(url: string, options: { protocols?: string[]; headers?: Record<string, string>; autoPong?: boolean } = {}): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {}, autoPong: options.autoPong ?? true });
    ws.once("open", () => resolve({ ok: true, ws, protocol: ws.protocol }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ ok: false, status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.once("error", (error) => reject(error));
  });
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Creates a stored session over `POST /v1/sessions` and returns its id. */
export async function createStoredSession(server: ServeProcess, cwd: string): Promise<string> {
  const response = await fetch(`${server.url}/v1/sessions`, {
    method: "POST",
    headers: { ...bearer(server.token), "content-type": "application/json" },
    body: JSON.stringify({ cwd }),
  });
  if (response.status !== 201) throw new Error(`POST /v1/sessions answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** The SDK's experimental WebSocket client stream, wrapped as a recording test client. */
export function connectWs(url: string, token: string, options: ClientOptions & { viaSubprotocol?: boolean } = {}): TestClient {
  const stream = createWebSocketStream(url, {
    WebSocket: WebSocket as never,
    protocols: options.viaSubprotocol ? [SUBPROTOCOL, `acp.bearer.${token}`] : [SUBPROTOCOL],
    ...(options.viaSubprotocol ? {} : { headers: bearer(token) }),
  });
  return connectStream(stream, options);
}

/** The SDK's Streamable HTTP client stream on `/acp`, wrapped as a recording test client. */
export function connectHttp(url: string, token: string, options: ClientOptions = {}): TestClient {
  return connectStream(createHttpStream(`${url}/acp`, { headers: bearer(token) }), options);
}

/** Raw JSON-RPC over an open socket: send objects, collect everything received. */
export function rawSocket(ws: WebSocket) {
  const received: any[] = [];
  ws.on("message", (data) => received.push(JSON.parse(data.toString())));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  return {
    received,
    closed,
    send: (message: unknown) => ws.send(typeof message === "string" ? message : JSON.stringify(message)),
    async response(id: number, timeoutMs = 10_000) {
      await waitFor(() => received.some((m) => m.id === id && !("method" in m)), timeoutMs, `response ${id}`);
      return received.find((m) => m.id === id && !("method" in m));
    },
  };
}
