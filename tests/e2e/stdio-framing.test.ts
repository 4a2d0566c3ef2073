/**
 * Raw bytes on stdin: LSP-style Content-Length frames (what rpi's clients
 * send) and broken input of every kind. The agent must answer in the framing
 * it was spoken to, keep going after bad messages, and exit cleanly when the
 * framing itself breaks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeSandbox, RUNTIMES, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";
import { contentLengthFrame, rawConnection } from "../helpers/raw-frames.ts";

const request = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, params });
const SIXTEEN_MIB = 16 * 1024 * 1024;

describe.each(RUNTIMES)("stdio framing on %s", (runtime) => {
  let sandbox: Sandbox;
  let script: string;

  beforeAll(() => {
    sandbox = makeSandbox();
    sandbox.write("project/hello.txt", "hello from a frame\n");
    script = sandbox.write(
      "script.json",
      JSON.stringify([{ toolCalls: [{ id: "c1", name: "read", input: { path: "hello.txt" } }] }, { text: "It says hello." }]),
    );
  });
  afterAll(() => sandbox.cleanup());

  const start = () =>
    spawnAgent(runtime, ["agent", "stdio", "--model", "faux/script"], { env: { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script } });

  test("Content-Length in, Content-Length out: initialize → new → prompt with a tool call → end_turn", async () => {
    const proc = start();
    const conn = rawConnection(proc, "content-length");
    await conn.send(contentLengthFrame(request(1, "initialize", { protocolVersion: 1, clientCapabilities: {} })));
    expect((await conn.response(1)).result.protocolVersion).toBe(1);
    await conn.send(contentLengthFrame(request(2, "session/new", { cwd: sandbox.project, mcpServers: [] })));
    const { sessionId } = (await conn.response(2)).result;
    await conn.send(contentLengthFrame(request(3, "session/prompt", { sessionId, prompt: [{ type: "text", text: "read it" }] })));
    // The answer carries the turn's token usage too (what the usage counts is checked in stdio-session-surface).
    expect((await conn.response(3)).result).toMatchObject({ stopReason: "end_turn", usage: { totalTokens: expect.any(Number) } });
    const updates = conn.seen.filter((m) => m.method === "session/update").map((m) => m.params.update);
    expect(updates.find((u) => u.sessionUpdate === "tool_call")).toMatchObject({ title: "Read hello.txt", locations: [{ path: join(sandbox.project, "hello.txt") }] });
    expect(JSON.stringify(updates)).toContain("hello from a frame");
    expect(conn.rawText().startsWith("Content-Length: ")).toBe(true);
    await conn.close();
    expect((await proc.exited).code).toBe(0);
  });

  test("bad messages inside good frames get errors and the connection goes on", async () => {
    const proc = start();
    const conn = rawConnection(proc, "content-length");
    await conn.send(contentLengthFrame("{not json"));
    expect(await conn.next()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    await conn.send(contentLengthFrame("[1,2]"));
    expect((await conn.next()).error.code).toBe(-32600);
    // Over the 16 MiB limit: refused without being buffered, and the next frame still works.
    await conn.send(contentLengthFrame(`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"pad":"${"x".repeat(SIXTEEN_MIB)}"}}`));
    const refused = await conn.next(20_000);
    expect(refused).toMatchObject({ id: null, error: { code: -32600 } });
    expect(refused.error.message).toContain("limit");
    await conn.send(contentLengthFrame(request(1, "initialize", { protocolVersion: 1 })));
    expect((await conn.response(1)).result.protocolVersion).toBe(1);
    await conn.close();
    expect((await proc.exited).code).toBe(0);
  }, 60_000);

  test("an oversized NDJSON line is refused and the next line still works", async () => {
    const proc = start();
    const conn = rawConnection(proc, "ndjson");
    await conn.send(`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"pad":"${"y".repeat(SIXTEEN_MIB)}"}}\n`);
    expect((await conn.next(20_000)).error.code).toBe(-32600);
    await conn.send(`${request(1, "initialize", { protocolVersion: 1 })}\n`);
    expect((await conn.response(1)).result.protocolVersion).toBe(1);
    await conn.close();
    expect((await proc.exited).code).toBe(0);
  }, 60_000);

  test("a broken frame header ends the process with a clear message on stderr", async () => {
    const proc = start();
    const conn = rawConnection(proc, "content-length");
    await conn.send(contentLengthFrame(request(1, "initialize", { protocolVersion: 1 })));
    expect((await conn.response(1)).result.protocolVersion).toBe(1);
    await conn.send("Content-Length: banana\r\n\r\n{}");
    const { code } = await proc.exited;
    expect(code).toBe(1);
    expect(proc.stderr()).toContain("Content-Length");
    expect(proc.stderr()).not.toContain("    at "); // a message, not a stack trace
  });

  test("initialize and session/new pipelined in one write both succeed, in order", async () => {
    const proc = start();
    const conn = rawConnection(proc, "ndjson");
    await conn.send(`${request(1, "initialize", { protocolVersion: 1 })}\n${request(2, "session/new", { cwd: sandbox.project, mcpServers: [] })}\n`);
    expect((await conn.response(1)).result.protocolVersion).toBe(1);
    expect((await conn.response(2)).result.sessionId).toMatch(/^sess_/);
    await conn.close();
    expect((await proc.exited).code).toBe(0);
  });

  test("stdout carries protocol only", async () => {
    const proc = start();
    const conn = rawConnection(proc, "ndjson");
    await conn.send(`${request(1, "initialize", { protocolVersion: 1 })}\n`);
    await conn.response(1);
    await conn.close();
    await proc.exited;
    for (const line of conn.rawText().split("\n").filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe("2.0");
  });
});

describe.each(RUNTIMES)("$/cancel_request on %s", (runtime) => {
  test("cancelling a prompt request answers it with stopReason cancelled", async () => {
    const sandbox = makeSandbox();
    const script = sandbox.write("slow.json", JSON.stringify([{ text: "a very slow answer indeed", delayMs: 100 }]));
    const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "faux/script"], { env: { ACP_EDGE_HOME: sandbox.home, ACP_EDGE_FAUX_SCRIPT: script } });
    const conn = rawConnection(proc, "ndjson");
    try {
      await conn.send(`${request(1, "initialize", { protocolVersion: 1 })}\n`);
      await conn.response(1);
      await conn.send(`${request(2, "session/new", { cwd: sandbox.project, mcpServers: [] })}\n`);
      const { sessionId } = (await conn.response(2)).result;
      await conn.send(`${request(3, "session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })}\n`);
      let chunk = await conn.next();
      while (chunk.params?.update?.sessionUpdate !== "agent_message_chunk") chunk = await conn.next();
      await conn.send(`${JSON.stringify({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 3 } })}\n`);
      const answer = await conn.response(3);
      // A cancelled prompt is a normal end of turn, never an error.
      // The answer also names the user message it recorded (`userMessageId`, the id a rewind can name).
      expect(answer.result).toEqual({ stopReason: "cancelled", userMessageId: expect.stringMatching(/^msg_/) });
      // The session is free again.
      await conn.send(`${request(4, "session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] })}\n`);
      expect((await conn.response(4)).error.message).toContain("no turn left");
    } finally {
      proc.child.kill("SIGKILL");
      sandbox.cleanup();
    }
  });
});
