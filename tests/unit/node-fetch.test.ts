/**
 * `nodeFetch` (src/runtime/node-fetch.ts), the `fetch` model requests use on
 * Node, run under Node itself (bundled with esbuild, one process per
 * scenario) against real HTTP servers: what it sends, streaming without
 * buffering, decoded bodies, statuses, redirects, refused and dropped
 * connections, aborts, and the whole model client's errors on top of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { buildSync } from "esbuild";
import { startFakeModelServer } from "../helpers/fake-model-server.ts";

const ROOT = resolve(import.meta.dir, "../..");
const NODE = process.execPath.endsWith("node") ? process.execPath : "node";
let dir: string;
let probe: string;
let server: Server;
let base: string;
const seen: { method?: string; url?: string; headers: IncomingMessage["headers"]; body: string }[] = [];
let releaseStream: (() => void) | undefined;
let midBodyClosed: Promise<void> | undefined;

const SSE = 'event: ping\ndata: {"n":1}\n\nevent: ping\ndata: {"n":2}\n\n';

function route(request: IncomingMessage, response: ServerResponse, body: string): void {
  seen.push({ method: request.method, url: request.url, headers: request.headers, body });
  const path = new URL(request.url ?? "/", "http://x").pathname;
  switch (path) {
    case "/echo":
      response.writeHead(200, { "content-type": "application/json", "x-twice": ["a", "b"], "X-Mixed-Case": "yes" });
      response.end(JSON.stringify({ method: request.method, body }));
      return;
    case "/gzip":
    case "/deflate":
    case "/br": {
      const encoded = path === "/gzip" ? gzipSync(SSE) : path === "/deflate" ? deflateSync(SSE) : brotliCompressSync(SSE);
      response.writeHead(200, { "content-type": "text/event-stream", "content-encoding": path.slice(1) });
      response.end(encoded);
      return;
    }
    case "/gzip-br":
      // Two codings, applied in order: gzip first, then brotli over it.
      response.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip, br" });
      response.end(brotliCompressSync(gzipSync(SSE)));
      return;
    case "/gzip-cut":
      // A gzip body cut short at a clean point, as fetch reads it: what arrived, no error.
      response.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" });
      response.end(gzipSync(SSE).subarray(0, -8));
      return;
    case "/busy-empty-gzip":
      response.writeHead(429, "Too Many Requests", { "content-encoding": "gzip", "content-length": "0" });
      response.end();
      return;
    case "/bad":
      response.writeHead(400, "Bad Request", { "content-type": "application/json" });
      response.end('{"type":"error","error":{"type":"invalid_request_error","message":"no"}}');
      return;
    case "/empty":
      response.writeHead(204);
      response.end();
      return;
    case "/moved":
      response.writeHead(307, { location: "/echo" });
      response.end();
      return;
    case "/hold":
      // First event now, the rest only once the client has asked for it on /release.
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: first\n\n");
      releaseStream = () => response.end("data: rest\n\n");
      return;
    case "/release":
      releaseStream?.();
      response.end("released");
      return;
    case "/forever":
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: first\n\n");
      midBodyClosed = new Promise((done) => response.on("close", () => done()));
      return;
    case "/drop-anthropic/messages": {
      // An Anthropic stream that stops after its first words, the connection cut.
      const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      response.writeHead(200, { "content-type": "text/event-stream" });
      const start = { message: { id: "m", type: "message", role: "assistant", model: "fake-model", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } };
      const head = event("message_start", start) + event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) + event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hello" } });
      response.write(head, () => setTimeout(() => response.socket?.destroy(), 20));
      return;
    }
    case "/drop":
    case "/drop-gzip": {
      const gzip = path === "/drop-gzip";
      response.writeHead(200, { "content-type": "text/event-stream", ...(gzip ? { "content-encoding": "gzip" } : {}) });
      const part = gzip ? gzipSync("data: x\n\n".repeat(2000)).subarray(0, 200) : Buffer.from("data: x\n\n");
      response.write(part, () => setTimeout(() => response.socket?.destroy(), 20));
      return;
    }
  }
  response.writeHead(404);
  response.end();
}

beforeAll(async () => {
  dir = mkdtempSync(join(realpathSync(tmpdir()), "acp-node-fetch-"));
  probe = join(dir, "probe.mjs");
  buildSync({
    entryPoints: [join(ROOT, "tests", "helpers", "node-fetch-probe.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: probe,
    banner: { js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);' },
    logLevel: "error",
  });
  server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => route(request, response, body));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs one scenario in a Node process; what it printed, parsed. */
async function onNode(scenario: Record<string, unknown>): Promise<Record<string, any>> {
  // Asynchronous: the servers answering it run in this process.
  const child = Bun.spawn([NODE, probe, JSON.stringify(scenario)], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`probe exited ${code}: ${err}`);
  return JSON.parse(out.trim().split("\n").at(-1)!);
}

describe("nodeFetch on Node", () => {
  test("a POST reaches the server with its body, length and headers; the response's headers read as fetch's do", async () => {
    seen.length = 0;
    const result = await onNode({ name: "fetch", url: `${base}/echo`, init: { method: "POST", headers: { "Content-Type": "application/json", "x-api-key": "k" }, body: '{"é":"ü"}' } });
    expect(result).toMatchObject({ ok: true, status: 200, text: JSON.stringify({ method: "POST", body: '{"é":"ü"}' }) });
    expect(result.headers).toMatchObject({ "content-type": "application/json", "x-twice": "a, b", "x-mixed-case": "yes" });
    expect(Object.keys(result.headers)).toEqual([...Object.keys(result.headers)].sort());
    const request = seen.at(-1)!;
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-api-key"]).toBe("k");
    expect(request.headers["content-length"]).toBe(String(Buffer.byteLength('{"é":"ü"}')));
    expect(request.headers["accept-encoding"]).toBe("gzip, br");
  });

  test("the body streams: the first event is read before the server has sent the rest", async () => {
    const result = await onNode({ name: "stream-then-release", url: `${base}/hold`, release: `${base}/release` });
    expect(result).toEqual({ first: "data: first\n\n", rest: "data: rest\n\n" });
  });

  test.each(["gzip", "deflate", "br"])("a %s body is decoded", async (encoding) => {
    const result = await onNode({ name: "fetch", url: `${base}/${encoding}` });
    expect(result.text).toBe(SSE);
  });

  test("a body with two codings is decoded in order, and a gzip body cut at a clean point reads as far as it goes", async () => {
    expect((await onNode({ name: "fetch", url: `${base}/gzip-br` })).text).toBe(SSE);
    expect(SSE.startsWith((await onNode({ name: "fetch", url: `${base}/gzip-cut` })).text)).toBe(true);
  });

  test("an empty body marked gzip reads as empty, as fetch reads it", async () => {
    expect(await onNode({ name: "fetch", url: `${base}/busy-empty-gzip` })).toMatchObject({ ok: false, status: 429, statusText: "Too Many Requests", text: "" });
  });

  test("an error status is a response, not a failure, with its status text and body", async () => {
    const result = await onNode({ name: "fetch", url: `${base}/bad`, init: { method: "POST", body: "{}" } });
    expect(result).toMatchObject({ ok: false, status: 400, statusText: "Bad Request" });
    expect(JSON.parse(result.text).error.message).toBe("no");
  });

  test("204 has no body", async () => {
    expect(await onNode({ name: "fetch", url: `${base}/empty` })).toMatchObject({ status: 204, bodyNull: true, text: "" });
  });

  test("a redirect is followed (by the runtime's fetch), as fetch would", async () => {
    const result = await onNode({ name: "fetch", url: `${base}/moved`, init: { method: "POST", body: "again" } });
    expect(result).toMatchObject({ status: 200, text: JSON.stringify({ method: "POST", body: "again" }) });
  });

  test("a body that is not a string goes to the runtime's fetch and arrives the same", async () => {
    const result = await onNode({ name: "fetch", url: `${base}/echo`, init: { method: "POST", body: "bytes", bytes: true } });
    expect(result.text).toBe(JSON.stringify({ method: "POST", body: "bytes" }));
  });

  test("a refused connection fails as fetch does: TypeError 'fetch failed' caused by ECONNREFUSED", async () => {
    const gone = createServer();
    await new Promise<void>((done) => gone.listen(0, "127.0.0.1", done));
    const port = (gone.address() as AddressInfo).port;
    await new Promise<void>((done) => gone.close(() => done()));
    const { error } = await onNode({ name: "refused", url: `http://127.0.0.1:${port}/` });
    expect(error).toMatchObject({ name: "TypeError", message: "fetch failed" });
    expect(error.codes).toContain("ECONNREFUSED");
  });

  test.each(["/drop", "/drop-gzip"])("a connection the server drops mid-body (%s) breaks the body with ECONNRESET", async (path) => {
    const { error } = await onNode({ name: "dropped", url: `${base}${path}` });
    expect(error).not.toBeNull();
    expect(error.codes).toContain("ECONNRESET");
  });

  test("an aborted signal rejects before any request is made", async () => {
    seen.length = 0;
    const { error } = await onNode({ name: "abort-before", url: `${base}/echo` });
    expect(error.name).toBe("AbortError");
    expect(seen).toEqual([]);
  });

  test("an abort rejects with the signal's reason, as fetch does", async () => {
    const { error } = await onNode({ name: "abort-with-reason", url: `${base}/forever` });
    expect(error).toMatchObject({ name: "Error", message: "the turn was cancelled" });
  });

  test("aborting mid-body fails the reader with AbortError and closes the connection", async () => {
    const result = await onNode({ name: "abort-mid-body", url: `${base}/forever` });
    expect(result.first).toBe("data: first\n\n");
    expect(result.error.name).toBe("AbortError");
    await midBodyClosed;
  });
});

describe("the model client on Node, over nodeFetch", () => {
  test("streams a reply", async () => {
    const model = await startFakeModelServer([{ text: "Hello from the fake." }]);
    try {
      expect(await onNode({ name: "model-turn", url: `${model.url}/v1` })).toEqual({ text: "Hello from the fake." });
    } finally {
      await model.close();
    }
  });

  test("an unreachable server is reported as a refused connection naming the URL", async () => {
    const gone = await startFakeModelServer();
    const url = `${gone.url}/v1`;
    await gone.close();
    const { error } = await onNode({ name: "model-turn", url });
    expect(error.message).toBe(`anthropic: could not connect to ${url} (connection refused)`);
  });

  test("a connection dropped mid-stream is reported as a broken stream", async () => {
    const result = await onNode({ name: "model-turn", url: `${base}/drop-anthropic` });
    expect(result.text).toBe("Hello");
    expect(result.error.message).toStartWith("anthropic: the response stream broke off (connection reset");
  });
});
