/**
 * The handlers behind every method but `initialize` load after start-up. A
 * client that writes its first requests together with `initialize`, before
 * any of that code has loaded, must get the same answers as one that waits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeSandbox, RUNTIMES, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";
import { rawConnection } from "../helpers/raw-frames.ts";

const request = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

describe.each(RUNTIMES)("first requests on %s", (runtime) => {
  let sandbox: Sandbox;
  beforeAll(() => (sandbox = makeSandbox()));
  afterAll(() => sandbox.cleanup());

  test("requests written in the same chunk as initialize are answered by their own handlers", async () => {
    const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "faux/echo"], { env: { ACP_EDGE_HOME: sandbox.home } });
    const conn = rawConnection(proc, "ndjson");
    const lines = [
      request(1, "initialize", { protocolVersion: 1, clientCapabilities: {} }),
      request(2, "session/fork", { sessionId: "sess_missing" }),
      request(3, "session/list", {}),
      request(4, "session/no_such_method", {}),
      request(5, "session/new", { cwd: sandbox.project, mcpServers: [] }),
      request(6, "session/load", { sessionId: "sess_missing", cwd: sandbox.project, mcpServers: [] }),
    ];
    await conn.send(lines.join("\n") + "\n");
    expect((await conn.response(1)).result.protocolVersion).toBe(1);
    const fork = await conn.response(2);
    expect(fork.error.code).toBe(-32602);
    expect(fork.error.message).toContain("cwd");
    expect(Array.isArray((await conn.response(3)).result.sessions)).toBe(true);
    expect((await conn.response(4)).error.code).toBe(-32601);
    expect((await conn.response(5)).result.sessionId).toMatch(/^sess_/);
    const load = await conn.response(6);
    expect(load.error).toMatchObject({ code: -32002, data: { sessionId: "sess_missing" } });
    await conn.close();
    expect((await proc.exited).code).toBe(0);
  });
});
