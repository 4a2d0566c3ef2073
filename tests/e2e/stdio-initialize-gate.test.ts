/**
 * `initialize` comes first, and only a bad `protocolVersion` fails it: a
 * request before a successful `initialize` is refused without being run, a
 * malformed `initialize` is answered with invalid params and leaves the gate
 * shut, and capabilities of the wrong shape read as absent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeSandbox, RUNTIMES, runAgentCommand, type Sandbox } from "../helpers/agent-process.ts";

describe.each(RUNTIMES)("the initialize gate on %s", (runtime) => {
  let sandbox: Sandbox;
  beforeAll(() => (sandbox = makeSandbox()));
  afterAll(() => sandbox.cleanup());

  test("nothing runs before initialize succeeds; then everything does", async () => {
    const lines = [
      { id: 1, method: "session/new", params: { cwd: sandbox.project, mcpServers: [] } },
      { id: 2, method: "initialize", params: { protocolVersion: "1" } },
      { id: 3, method: "session/list", params: {} },
      { id: 4, method: "initialize", params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: "yes" }, terminal: 1 } } },
      { id: 5, method: "session/new", params: { cwd: sandbox.project, mcpServers: [] } },
    ].map((m) => JSON.stringify({ jsonrpc: "2.0", ...m }));
    const result = await runAgentCommand(runtime, ["agent", "stdio", "--model", "faux/echo"], { env: { ACP_EDGE_HOME: sandbox.home }, input: `${lines.join("\n")}\n` });
    expect(result.code).toBe(0);
    const answers = new Map(result.stdout.trim().split("\n").map((l) => JSON.parse(l)).filter((m) => m.id !== undefined).map((m) => [m.id, m]));
    expect(answers.get(1).error).toMatchObject({ code: -32600 });
    expect(answers.get(1).error.message).toContain("initialized before 'session/new'");
    expect(answers.get(2).error).toMatchObject({ code: -32602 });
    expect(answers.get(2).error.message).toContain("protocolVersion");
    expect(answers.get(3).error).toMatchObject({ code: -32600 });
    expect(answers.get(4).result.protocolVersion).toBe(1);
    expect(answers.get(5).result.sessionId).toMatch(/^sess_/);
  });
});
