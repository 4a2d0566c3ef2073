/**
 * Hostile HTTP bodies against `agent serve` on each runtime, over raw
 * sockets: `POST /v1/sessions` and `POST /acp` with 100 MB bodies with and
 * without a Content-Length, a Content-Length that lies, a body that
 * trickles in, several large bodies at once — each refused (413 once past
 * its limit) with a short answer, while the server keeps serving everyone
 * else; error messages quote input only as an excerpt; a subprotocol token
 * counts for nothing on plain HTTP. (The server's memory during these is
 * measured by bench/serve-hostile.mjs.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, RUNTIMES, type Sandbox } from "../helpers/agent-process.ts";
import { peakMemory } from "../helpers/processes.ts";
import { answerJson, rawRequest, type RawAnswer } from "../helpers/raw-http.ts";
import { bearer, startServe, TOKEN, type ServeProcess } from "../helpers/serve-process.ts";

const MB = 1_000_000;
const REST_LIMIT = 64 * 1024;
const JSON_HEADERS = { ...bearer(TOKEN), "Content-Type": "application/json" };

describe.each(RUNTIMES)("hostile HTTP bodies on %s", (runtime) => {
  let sandbox: Sandbox;
  let server: ServeProcess;
  beforeAll(async () => {
    sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ serve: { maxMessageBytes: 1024 * 1024 } }));
    server = await startServe(runtime, sandbox);
  });
  afterAll(async () => {
    await server.stop();
    sandbox.cleanup();
  });

  const post = (path: string, request: Omit<Parameters<typeof rawRequest>[1], "path">) => rawRequest(server.url, { path, headers: JSON_HEADERS, ...request });
  const expectRefused = (answer: RawAnswer, status: number, code: string) => {
    expect({ status: answer.status, code: answerJson(answer)?.error?.code }).toEqual({ status, code });
    expect(answer.bodyBytes).toBeLessThan(1024);
  };
  /** The server still does ordinary work. */
  const stillServing = async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const created = await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...bearer(TOKEN), "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project }) });
    expect(created.status).toBe(201);
  };

  test("100 MB with a Content-Length: 413 at once, without reading the body", async () => {
    const answer = await post("/v1/sessions", { streamBytes: 100 * MB });
    expectRefused(answer, 413, "body_too_large");
    expect(answer.sent).toBeLessThan(100 * MB);
    await stillServing();
  });

  test("100 MB chunked (no Content-Length): 413 once past the limit, nothing kept", async () => {
    const pid = server.proc.child.pid!;
    writeFileSync(`/proc/${pid}/clear_refs`, "5"); // resets the peak (VmHWM) to what is resident now
    const before = peakMemory(pid);
    const answer = await post("/v1/sessions", { streamBytes: 100 * MB, chunked: true });
    expectRefused(answer, 413, "body_too_large");
    // Bun's server reads and drops the rest of a refused body (to keep the connection usable), so a fast
    // client may get all of it out; what matters on every runtime is that none of it is kept.
    if (runtime !== "bun") expect(answer.sent).toBeLessThan(100 * MB);
    expect(peakMemory(pid) - before).toBeLessThan(32 * 1024 * 1024);
    await stillServing();
  });

  test("a Content-Length that lies: more bytes than declared, or a malformed length", async () => {
    // Declares 20 bytes of a 100 MB body: what follows those 20 bytes is not a request.
    const short = await post("/v1/sessions", { streamBytes: 100 * MB, declaredLength: 20 });
    expect(short.status === 0 || short.status === 400).toBe(true);
    expect(short.bodyBytes).toBeLessThan(1024);
    const malformed = await post("/v1/sessions", { body: JSON.stringify({ cwd: sandbox.project }), declaredLength: Number.NaN });
    expect(malformed.status).toBe(400);
    expect(malformed.bodyBytes).toBeLessThan(1024);
    await stillServing();
  });

  test("a body that trickles in keeps no one else waiting, and is refused once it passes the limit", async () => {
    let release!: () => void;
    const others = new Promise<void>((resolve) => (release = resolve));
    const trickled = post("/v1/sessions", {
      chunked: true,
      trickle: async (send) => {
        await send('{"cwd":"/');
        // Half the limit, then everyone else's turn, then the rest a KiB at a time.
        for (let i = 0; i < 32; i += 1) await send("a".repeat(1024));
        await others;
        for (let i = 0; i < 64 && (await send("a".repeat(1024))); i += 1);
      },
    });
    await stillServing();
    release();
    expectRefused(await trickled, 413, "body_too_large");
  });

  test("four concurrent 100 MB bodies, REST and /acp, chunked: all refused", async () => {
    const answers = await Promise.all([
      post("/v1/sessions", { streamBytes: 100 * MB, chunked: true }),
      post("/v1/sessions", { streamBytes: 100 * MB, chunked: true }),
      post("/acp", { streamBytes: 100 * MB, chunked: true }),
      post("/acp", { streamBytes: 100 * MB, chunked: true }),
    ]);
    expect(answers.map((a) => [a.status, answerJson(a)?.error?.code])).toEqual([
      [413, "body_too_large"],
      [413, "body_too_large"],
      [413, "message_too_large"],
      [413, "message_too_large"],
    ]);
    await stillServing();
  });

  test("/acp over its message limit: refused with a Content-Length, and chunked", async () => {
    expectRefused(await post("/acp", { streamBytes: 2 * MB }), 413, "message_too_large");
    expectRefused(await post("/acp", { streamBytes: 2 * MB, chunked: true }), 413, "message_too_large");
  });

  test("the limit is exact: a body of 64 KiB is read, one byte more is refused, with or without a length", async () => {
    const json = JSON.stringify({ cwd: sandbox.project });
    const padded = (size: number) => json + " ".repeat(size - Buffer.byteLength(json));
    for (const chunked of [false, true]) {
      expect({ chunked, status: (await post("/v1/sessions", { body: padded(REST_LIMIT), chunked })).status }).toEqual({ chunked, status: 201 });
      expectRefused(await post("/v1/sessions", { body: padded(REST_LIMIT + 1), chunked }), 413, "body_too_large");
    }
  });

  test("errors quote what was sent only as an excerpt", async () => {
    const long = "x".repeat(REST_LIMIT - 100);
    const cases: Array<[unknown, string]> = [
      [{ cwd: `/${long}` }, "cwd is not an existing directory"],
      [{ cwd: long }, "cwd must be an absolute path"],
      [{ cwd: sandbox.project, additionalDirectories: long }, "additionalDirectories"],
      [{ cwd: sandbox.project, additionalDirectories: [`/${long}`] }, "additionalDirectories is not an existing directory"],
      [{ cwd: sandbox.project, title: long }, "title"],
      [{ cwd: 1, title: 2, additionalDirectories: [3, 4, 5, 6, 7] }, "and 4 more"],
    ];
    for (const [body, says] of cases) {
      const text = JSON.stringify(body);
      expect(text.length).toBeLessThanOrEqual(REST_LIMIT);
      const answer = await post("/v1/sessions", { body: text });
      expect(answer.status).toBe(400);
      const message: string = answerJson(answer).error.message;
      expect(message).toContain(says);
      expect(message.length).toBeLessThanOrEqual(400);
      expect(message).not.toContain("x".repeat(100));
    }
    const ambiguousRef = await fetch(`${server.url}/v1/sessions/${"r".repeat(8000)}`, { headers: bearer(TOKEN) });
    expect(ambiguousRef.status).toBe(404);
    expect((await ambiguousRef.text()).length).toBeLessThan(1024);
  });

  test("a subprotocol token means nothing on plain HTTP", async () => {
    const entry = { "sec-websocket-protocol": `agent-client-protocol.v1, acp.bearer.${TOKEN}` };
    for (const path of ["/v1/capabilities", "/v1/sessions", "/console/activity"]) {
      const refused = await fetch(`${server.url}${path}`, { headers: entry });
      expect({ path, status: refused.status }).toEqual({ path, status: 401 });
    }
    const created = await fetch(`${server.url}/v1/sessions`, { method: "POST", headers: { ...entry, "content-type": "application/json" }, body: JSON.stringify({ cwd: sandbox.project }) });
    expect(created.status).toBe(401);
  });
});
