import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as v from "valibot";
import { logLevel, setLogLevel } from "../../src/runtime/log.ts";
import { redact, registerSecret } from "../../src/runtime/secrets.ts";
import { spawnProcess } from "../../src/runtime/process/spawn-program.ts";
import type { McpServerConfig } from "../../src/tools/mcp/config.ts";
import { McpConnections, type McpConnectionsOptions } from "../../src/tools/mcp/connections.ts";
import { MAX_TOOL_NAME_LENGTH, toolNames, uniqueKeys } from "../../src/tools/mcp/names.ts";
import { MAX_RESULT_TEXT_BYTES, mcpToolResult } from "../../src/tools/mcp/result.ts";
import { ToolError, type ToolDefinition, type ToolResult, type Workspace } from "../../src/tools/types.ts";
import { ODD_TOOL_NAMES, PNG_BASE64, startHttpMcpServer, type HttpMcpServer } from "../helpers/mcp-test-server.ts";
import { processGone } from "../helpers/processes.ts";

const SERVER = resolve(import.meta.dir, "../helpers/mcp-test-server.ts");
const ENV_SECRET = "sk-env-secret-0123456789abcdef";
const HEADER_SECRET = "hdr-secret-fedcba9876543210";
const workspace = {} as Workspace;

let dir: string;
let http: HttpMcpServer;
const open: McpConnections[] = [];
const stray: number[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(realpathSync(tmpdir()), "acp-mcp-"));
  http = await startHttpMcpServer({ notesFile: join(realpathSync(tmpdir()), `acp-mcp-http-${process.pid}.txt`) });
});

afterAll(async () => {
  await Promise.all(open.map((connections) => connections.close()));
  for (const pid of stray) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  await http.close();
  rmSync(dir, { recursive: true, force: true });
});

function stdio(name: string, args: string[] = [], env: Array<{ name: string; value: string }> = []): McpServerConfig {
  return { name, command: process.execPath, args: [SERVER, "--stdio", ...args], env };
}

/** An McpConnections that is closed after the suite, plus the notices it produced. */
async function connect(servers: McpServerConfig[], options: Partial<McpConnectionsOptions> = {}) {
  const notices: string[] = [];
  const connections = new McpConnections({ servers, cwd: dir, onNotice: (text) => notices.push(text), ...options });
  open.push(connections);
  connections.start();
  await connections.ready();
  return { connections, notices };
}

function toolOf(connections: McpConnections, name: string): ToolDefinition {
  const tool = connections.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${connections.tools().map((t) => t.name).join(", ")}`);
  return tool;
}

/** Validates like the engine does, then runs. */
async function call(connections: McpConnections, name: string, input: unknown, signal = new AbortController().signal): Promise<ToolResult> {
  const tool = toolOf(connections, name);
  const parsed = v.safeParse(tool.schema, input);
  if (!parsed.success) throw new Error(`invalid: ${parsed.issues.map((i) => i.message).join("; ")}`);
  return tool.execute(parsed.output, { workspace, signal });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail");
}

const textOf = (result: ToolResult) => result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");

describe("names", () => {
  test("sanitised, unique, at most 64 characters, independent of order", () => {
    const raw = ["a.b", "a_b", "a b", "x".repeat(100), `${"x".repeat(100)}y`];
    const names = toolNames("srv", raw);
    expect(new Set(names).size).toBe(raw.length);
    for (const name of names) {
      expect(name).toMatch(/^mcp__srv__[A-Za-z0-9_-]+$/);
      expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    }
    expect(names[1]).toBe("mcp__srv__a_b"); // an already clean name keeps its spelling
    const reversed = toolNames("srv", [...raw].reverse()).reverse();
    expect(reversed).toEqual(names);
    expect(uniqueKeys(["", "", "ok"])).toEqual(["_", "__2", "ok"]);
  });
});

describe("results and secrets", () => {
  test("a key where a huge result is cut is hidden before the cut", () => {
    const key = "mcp-result-cut-0123456789";
    registerSecret(key);
    for (const back of [5, 12, 20]) {
      const text = `${"r".repeat(MAX_RESULT_TEXT_BYTES - back)}${key}${"s".repeat(100)}`;
      const mapped = textOf(mcpToolResult({ content: [{ type: "text", text }] }, "s", "t"));
      expect(mapped).toContain("[Output truncated");
      expect(mapped).not.toContain(key.slice(0, 5));
    }
  });

  test("content blocks map to text and images; huge text is cut", () => {
    const mapped = mcpToolResult(
      {
        content: [
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///x.bin", blob: "AAAA", mimeType: "application/octet-stream" } },
          { type: "text", text: "é".repeat(MAX_RESULT_TEXT_BYTES) },
          { type: "text", text: "dropped" },
        ],
        isError: true,
      },
      "s",
      "t",
    );
    expect(mapped.isError).toBe(true);
    expect(textOf(mapped)).toContain("[audio (audio/wav) not shown]");
    expect(textOf(mapped)).toContain("[binary resource file:///x.bin (application/octet-stream) not shown]");
    expect(textOf(mapped)).toContain("[Output truncated");
    expect(textOf(mapped)).not.toContain("dropped");
    expect(new TextEncoder().encode(textOf(mapped)).length).toBeLessThan(MAX_RESULT_TEXT_BYTES + 500);
    expect(textOf(mcpToolResult({ content: [], structuredContent: { a: 1 } }, "s", "t"))).toContain('"a": 1');
    expect(textOf(mcpToolResult({ content: [] }, "s", "t"))).toBe("(no output)");
  });

  test("env values, header values, bearer tokens and URL credentials are registered as secrets", () => {
    const token = "bearer-only-token-5566778899";
    const inUrl = "url-query-secret-1122334455";
    new McpConnections({
      servers: [
        { type: "http", name: "h", url: `https://example.invalid/mcp?api_key=${inUrl}&page=2`, headers: [{ name: "Authorization", value: `Bearer ${token}` }] },
        stdio("s", [], [{ name: "K", value: "env-value-secret-998877" }]),
      ],
      cwd: dir,
      onNotice: () => {},
    });
    expect(redact(`a ${token} b`)).toBe("a [redacted] b");
    expect(redact(inUrl)).toBe("[redacted]");
    expect(redact("env-value-secret-998877")).toBe("[redacted]");
    expect(redact("page=2")).toBe("page=2");
  });
});

describe.each(["stdio", "http", "sse"] as const)("MCP over %s", (transport) => {
  let connections: McpConnections;
  let notices: string[];
  const server = transport === "stdio" ? "notes" : `web_${transport}`;
  const notesFile = () => (transport === "stdio" ? join(dir, "notes.txt") : join(realpathSync(tmpdir()), `acp-mcp-http-${process.pid}.txt`));

  beforeAll(async () => {
    const config: McpServerConfig =
      transport === "stdio"
        ? stdio(server, ["--notes", join(dir, "notes.txt")], [{ name: "MCP_TEST_SECRET", value: ENV_SECRET }])
        : { type: transport, name: server, url: `${http.url}/${transport === "http" ? "mcp" : "sse"}`, headers: [{ name: "X-Api-Token", value: HEADER_SECRET }] };
    ({ connections, notices } = await connect([config]));
  });

  test("lists the tools with collision-free names and the server's schema", () => {
    const tools = connections.tools();
    const names = tools.map((t) => t.name);
    expect(names).toContain(`mcp__${server}__echo`);
    expect(names).toContain(`mcp__${server}__write_note`);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n) => n.includes("with_dots"))).toHaveLength(2);
    for (const name of names) {
      expect(name).toMatch(/^mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+$/);
      expect(name.length).toBeLessThanOrEqual(64);
    }
    expect(tools).toHaveLength(11 + ODD_TOOL_NAMES.length);

    const echo = toolOf(connections, `mcp__${server}__echo`);
    expect(echo.jsonSchema).toEqual({
      type: "object",
      properties: { text: { type: "string", description: "Text to echo" } },
      required: ["text"],
      additionalProperties: false,
    });
    expect(echo.description).toContain(server);
    expect(echo.description).toContain("Echoes the text back.");
    expect(echo.kind).toBe("read");
    expect(echo.access?.({ text: "x" }, workspace)).toEqual({ class: "read" });
    expect(echo.describe({ text: "x" }, workspace)).toEqual({ title: `${server}: echo`, locations: [] });

    const write = toolOf(connections, `mcp__${server}__write_note`);
    expect(write.kind).toBe("other");
    expect(write.access?.({ note: "x" }, workspace)).toEqual({ class: "other" });
    expect(notices).toEqual([]);
    // Same list, same objects (the engine caches specs per definition).
    expect(connections.tools()[0]).toBe(tools[0] as ToolDefinition);
  });

  test("calls echo, image, resource, fail and write_note", async () => {
    expect(textOf(await call(connections, `mcp__${server}__echo`, { text: "hello" }))).toBe("hello");
    const dotted = toolOf(connections, `mcp__${server}__name_with_dots_2`);
    expect(textOf(await dotted.execute({ text: "hi" }, { workspace, signal: new AbortController().signal }))).toBe("name.with.dots: hi");

    const image = await call(connections, `mcp__${server}__image`, {});
    expect(image.content[1]).toEqual({ type: "image", data: PNG_BASE64, mimeType: "image/png" });

    const resource = textOf(await call(connections, `mcp__${server}__resource`, {}));
    expect(resource).toContain("file:///notes/readme.md");
    expect(resource).toContain("# Notes");
    expect(resource).toContain("todo.md");

    const failed = await call(connections, `mcp__${server}__fail`, {});
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("it failed on purpose");

    const note = `note from ${transport} ${Date.now()}`;
    expect(textOf(await call(connections, `mcp__${server}__write_note`, { note }))).toBe("saved");
    expect(readFileSync(notesFile(), "utf8")).toContain(note);
  });

  test("invalid arguments fail validation with a readable message", () => {
    const echo = toolOf(connections, `mcp__${server}__echo`);
    const missing = v.safeParse(echo.schema, {});
    expect(missing.success).toBe(false);
    expect(missing.issues?.[0]?.message).toContain("required property 'text'");
    const wrongType = v.safeParse(echo.schema, { text: 5 });
    expect(wrongType.issues?.[0]?.message).toBe("text must be string");
    const extra = v.safeParse(echo.schema, { text: "a", other: 1 });
    expect(extra.success).toBe(false);
    expect(v.safeParse(echo.schema, "text").issues?.[0]?.message).toContain("expected an object");
    expect(v.safeParse(echo.schema, { text: "ok" }).success).toBe(true);
    const slow = toolOf(connections, `mcp__${server}__slow`);
    expect(v.safeParse(slow.schema, { ms: -1 }).issues?.[0]?.message).toContain(">= 0");
  });

  test("a cancelled call returns promptly and the server hears of it", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("user cancelled")), 150);
    const error = await failure(call(connections, `mcp__${server}__slow`, { ms: 10_000 }, controller.signal));
    expect(error.message).toBe("user cancelled");
    expect(Date.now() - started).toBeLessThan(2000);
    // Still usable afterwards.
    expect(textOf(await call(connections, `mcp__${server}__echo`, { text: "after" }))).toBe("after");
    for (let i = 0; i < 40 && !readFileSync(notesFile(), "utf8").includes("slow cancelled"); i++) await Bun.sleep(25);
    expect(readFileSync(notesFile(), "utf8")).toContain("slow cancelled");
  });

  test("a malformed result is a clear error naming the server", async () => {
    const error = await failure(call(connections, `mcp__${server}__bad_result`, {}));
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toContain(`MCP server "${server}" returned a malformed result`);
    expect(error.message).toContain("content");
  });

  test("secrets reach the server but no notice or error", async () => {
    const who = JSON.parse(textOf(await call(connections, `mcp__${server}__whoami`, { env: "MCP_TEST_SECRET", header: "X-Api-Token" })));
    if (transport === "stdio") expect(who.env).toBe(ENV_SECRET);
    else expect(who.header).toBe(HEADER_SECRET);
    const all = notices.join("\n");
    expect(all).not.toContain(ENV_SECRET);
    expect(all).not.toContain(HEADER_SECRET);
  });
});

describe("startup failures", () => {
  test("a missing command, a hang, an early exit and a 404 each give one notice and no tools", async () => {
    const pidFile = join(dir, "hang.pid");
    const started = Date.now();
    const { connections, notices } = await connect(
      [
        { name: "missing", command: "definitely-not-a-command-4711", args: [], env: [] },
        { name: "missing-abs", command: "/nonexistent/bin/server", args: [], env: [] },
        stdio("hang", ["--hang-on-start", "--pid-file", pidFile]),
        stdio("early", ["--exit-at-start", "3"], [{ name: "MCP_TEST_SECRET", value: ENV_SECRET }]),
        { type: "http", name: "nowhere", url: `${http.url}/nope`, headers: [{ name: "Authorization", value: `Bearer ${HEADER_SECRET}` }] },
        { type: "http", name: "bad-url", url: "not a url", headers: [] },
        // Answers `initialize` (request id 0) with something that is not an InitializeResult.
        { name: "garbage", command: "/bin/sh", args: ["-c", `read -r line; echo '{"jsonrpc":"2.0","id":0,"result":{"bogus":true}}'; exec sleep 30`], env: [] },
        stdio("good"),
      ],
      // Long enough for the good server to start on a loaded machine; the hanging one is cut off at it.
      { startupTimeoutMs: 6000 },
    );
    // The servers start side by side: the hanging one costs the timeout once, not the sum of all.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(connections.tools().every((t) => t.name.startsWith("mcp__good__"))).toBe(true);
    expect(connections.tools().length).toBeGreaterThan(0);
    expect(notices).toHaveLength(7);
    const noticeOf = (name: string) => notices.find((n) => n.startsWith(`MCP server "${name}"`)) ?? "";
    expect(noticeOf("missing")).toBe('MCP server "missing" failed to start: command not found: definitely-not-a-command-4711');
    expect(noticeOf("missing-abs")).toContain("command not found: /nonexistent/bin/server");
    expect(noticeOf("hang")).toBe('MCP server "hang" failed to start: did not finish starting within 6s');
    expect(noticeOf("early")).toContain("exited during startup (exit code 3): fatal: cannot start with key [redacted]");
    expect(noticeOf("nowhere")).toContain('MCP server "nowhere" failed to connect: HTTP 404');
    expect(noticeOf("bad-url")).toContain("invalid URL");
    expect(noticeOf("garbage")).toContain('MCP server "garbage" failed to start: sent a malformed answer: protocolVersion');
    const all = notices.join("\n");
    expect(all).not.toContain(ENV_SECRET);
    expect(all).not.toContain(HEADER_SECRET);
    // The server that hung was killed, not left behind.
    const hangPid = Number(readFileSync(pidFile, "utf8"));
    stray.push(hangPid);
    expect(processGone(hangPid)).toBe(true);
  }, 10_000);

  test("ready(timeoutMs) does not wait for a slow server", async () => {
    const connections = new McpConnections({ servers: [stdio("hang", ["--hang-on-start"])], cwd: dir, onNotice: () => {} });
    open.push(connections);
    connections.start();
    const started = Date.now();
    await connections.ready(200);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(connections.tools()).toEqual([]);
    await connections.close();
  });
});

describe("crashes and restarts", () => {
  test("a crash fails the call clearly, the next call restarts, and restarts are bounded", async () => {
    const { connections, notices } = await connect([stdio("flaky")], { maxRestarts: 2 });
    const pidOf = async () => Number(textOf(await call(connections, "mcp__flaky__pid", {})));
    const first = await pidOf();
    const crash = async () => (await failure(call(connections, "mcp__flaky__crash", {}))).message;

    expect(await crash()).toBe('MCP server "flaky" stopped (exit code 1); it will be restarted on the next call');
    const second = await pidOf();
    expect(second).not.toBe(first);
    expect(processGone(first)).toBe(true);

    expect(await crash()).toContain("it will be restarted on the next call");
    const third = await pidOf();
    expect(third).not.toBe(second);

    expect(await crash()).toBe('MCP server "flaky" stopped (exit code 1); it was already restarted 2 times and will not be restarted again');
    const error = await failure(call(connections, "mcp__flaky__echo", { text: "x" }));
    expect(error).toBeInstanceOf(ToolError);
    expect(error.message).toContain('MCP server "flaky" stopped (exit code 1)');
    expect(error.message).toContain("will not be restarted again");
    // The tools stay listed so that a call explains what happened instead of "tool not found".
    expect(connections.tools().length).toBeGreaterThan(0);
    expect(notices.filter((n) => n.includes("stopped"))).toHaveLength(3);
  }, 10_000);

  test("--crash-after: the server dies on its own, the call after it works again", async () => {
    const { connections } = await connect([stdio("brittle", ["--crash-after", "1"])]);
    expect(textOf(await call(connections, "mcp__brittle__echo", { text: "one" }))).toBe("one");
    expect((await failure(call(connections, "mcp__brittle__echo", { text: "two" }))).message).toContain('MCP server "brittle" stopped (exit code 1)');
    expect(textOf(await call(connections, "mcp__brittle__echo", { text: "three" }))).toBe("three");
  }, 10_000);

  test("maxRestarts 0 never restarts", async () => {
    const { connections } = await connect([stdio("once")], { maxRestarts: 0 });
    expect((await failure(call(connections, "mcp__once__crash", {}))).message).toBe('MCP server "once" stopped (exit code 1); it will not be restarted');
    expect((await failure(call(connections, "mcp__once__echo", { text: "x" }))).message).toContain("will not be restarted");
  });

  test("callTimeoutMs ends a call the server does not answer", async () => {
    const { connections } = await connect([stdio("sluggish")], { callTimeoutMs: 200 });
    const started = Date.now();
    const error = await failure(call(connections, "mcp__sluggish__slow", { ms: 5000 }));
    expect(error.message).toBe('MCP server "sluggish" did not answer "slow" within 0.2s.');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("lifecycle", () => {
  test("close() kills the stdio server's whole process tree and is idempotent", async () => {
    const { connections } = await connect([stdio("tree")]);
    const serverPid = Number(textOf(await call(connections, "mcp__tree__pid", {})));
    const childPid = Number(textOf(await call(connections, "mcp__tree__spawn_child", {})));
    stray.push(serverPid, childPid);
    expect(processGone(serverPid)).toBe(false);
    expect(processGone(childPid)).toBe(false);
    await connections.close();
    expect(processGone(serverPid)).toBe(true);
    expect(processGone(childPid)).toBe(true);
    await connections.close();
    expect(connections.tools()).toEqual([]);
  });

  test("close() during startup leaves no process behind", async () => {
    const pidFile = join(dir, "early-close.pid");
    const connections = new McpConnections({ servers: [stdio("hang", ["--hang-on-start", "--pid-file", pidFile])], cwd: dir, onNotice: () => {} });
    connections.start();
    for (let i = 0; i < 100 && !existsSync(pidFile); i++) await Bun.sleep(20);
    const pid = Number(readFileSync(pidFile, "utf8"));
    stray.push(pid);
    await connections.close();
    expect(processGone(pid)).toBe(true);
  });

  test("two sessions never see each other's tools or servers", async () => {
    const notesA = join(dir, "a.txt");
    const notesB = join(dir, "b.txt");
    const [a, b] = await Promise.all([connect([stdio("notes", ["--notes", notesA])]), connect([stdio("notes", ["--notes", notesB]), { type: "http", name: "web", url: `${http.url}/mcp`, headers: [] }])]);
    expect(a.connections.tools().some((t) => t.name.startsWith("mcp__web__"))).toBe(false);
    expect(b.connections.tools().some((t) => t.name.startsWith("mcp__web__"))).toBe(true);
    await call(a.connections, "mcp__notes__write_note", { note: "from a" });
    await call(b.connections, "mcp__notes__write_note", { note: "from b" });
    expect(readFileSync(notesA, "utf8")).toBe("from a\n");
    expect(readFileSync(notesB, "utf8")).toBe("from b\n");
    await a.connections.close();
    expect(textOf(await call(b.connections, "mcp__notes__echo", { text: "still here" }))).toBe("still here");
  });

  test("servers with clashing names get distinct prefixes", async () => {
    const { connections } = await connect([stdio("my server"), stdio("my_server")]);
    const prefixes = new Set(connections.tools().map((t) => t.name.split("__")[1]));
    expect(prefixes).toEqual(new Set(["my_server", "my_server_2"]));
    expect(toolOf(connections, "mcp__my_server_2__echo").describe({ text: "" }, workspace).title).toBe("my server: echo");
  });

  test("server stderr goes to the debug log, redacted, and nothing to stdout", async () => {
    const previous = logLevel();
    const writes: { stream: string; text: string }[] = [];
    const originalErr = process.stderr.write.bind(process.stderr);
    const originalOut = process.stdout.write.bind(process.stdout);
    process.stderr.write = ((chunk: string | Uint8Array) => (writes.push({ stream: "stderr", text: String(chunk) }), true)) as typeof process.stderr.write;
    process.stdout.write = ((chunk: string | Uint8Array) => (writes.push({ stream: "stdout", text: String(chunk) }), true)) as typeof process.stdout.write;
    setLogLevel("debug");
    try {
      const { connections } = await connect([stdio("chatty", [], [{ name: "MCP_TEST_SECRET", value: ENV_SECRET }])]);
      await call(connections, "mcp__chatty__echo", { text: "x" });
      await connections.close();
    } finally {
      setLogLevel(previous);
      process.stderr.write = originalErr;
      process.stdout.write = originalOut;
    }
    expect(writes.filter((w) => w.stream === "stdout")).toEqual([]);
    const log = writes.map((w) => w.text).join("");
    expect(log).toContain('MCP server "chatty" stderr: mcp-test-server: ready on stdio (key [redacted])');
    expect(log).not.toContain(ENV_SECRET);
  });
});

describe("spawnProcess", () => {
  test("terminate() escalates to SIGKILL for a group that ignores SIGTERM", async () => {
    const child = await spawnProcess({ command: "/bin/sh", args: ["-c", "trap '' TERM; sleep 30 & echo $!; wait"], cwd: dir });
    const iterator = child.stdout[Symbol.asyncIterator]();
    const sleeper = Number(new TextDecoder().decode((await iterator.next()).value).trim());
    stray.push(child.pid, sleeper);
    const started = Date.now();
    await child.terminate(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await child.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(processGone(sleeper)).toBe(true);
  });
});
