/**
 * An API key planted everywhere it can travel — a file that is read, grepped,
 * edited and written; command output that splits it across deltas; output
 * long enough to be saved to a file; model text streamed in small pieces; a
 * provider error body; an MCP tool result and an MCP server's stderr — never
 * appears on stdout, on stderr at debug level, in session files or in saved
 * outputs, on every runtime. Real HTTP against the fake model server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, connectStream, initialize } from "../helpers/acp-client.ts";
import { makeSandbox, ROOT, RUNTIMES, spawnAgent } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../helpers/fake-model-server.ts";
import { answering, finalStatus, toolEvents } from "../helpers/scenario.ts";

const { methods } = acp;
const KEY = "sk-ant-e2e-PLANTED-7c1d9f2a4b6e8d0f";
const MCP_KEY = "mcp-e2e-PLANTED-5e3b1a9c7d";
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const MCP_SERVER = join(ROOT, "tests", "helpers", "mcp-test-server.ts");
/** Prints the key in two writes with a pause between, cut at `cut`, so the pieces arrive in different reads and deltas. */
const splitPrint = (cut: number) => `printf '%s' '${KEY.slice(0, cut)}'; sleep 0.3; printf '%s\\n' '${KEY.slice(cut)}'`;
/** Over 50 KiB before the key, so the whole output is saved to a file. */
const LONG = `seq 1 20000; ${splitPrint(17)}; echo end`;
const call = (id: string, name: string, input: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ id, name, input }] });

/** Every file under `dir` (recursively), except those under `skip`. */
function filesUnder(dir: string, skip: string[] = []): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (skip.includes(path)) continue;
    if (entry.isDirectory()) out.push(...filesUnder(path, skip));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe.each(RUNTIMES)("secrets on %s", (runtime) => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });

  test("a planted key never reaches stdout, debug stderr, session files or saved outputs", async () => {
    const sandbox = makeSandbox();
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, ACP_EDGE_HOME: sandbox.home, TMPDIR: sandbox.root };
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ maxRetries: 0 }));
    sandbox.write("project/.env", `ANTHROPIC_API_KEY=${KEY}\nOTHER=1\n`);
    const written = join(sandbox.project, "copy.env");
    const proc = spawnAgent(runtime, ["agent", "stdio", "--model", "anthropic/claude-sonnet-4-5", "--log-level", "debug"], { env });
    // Everything the agent writes to stdout, byte for byte, beside the client reading it.
    const [forClient, forCheck] = proc.stdout.tee();
    let stdout = "";
    const collected = forCheck.pipeThrough(new TextDecoderStream()).pipeTo(new WritableStream({ write: (text) => void (stdout += text) }));
    const answers = answering("allow_once");
    const client = connectStream(acp.ndJsonStream(proc.stdin, forClient), answers);
    try {
      await initialize(client);
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      server.push(
        call("read", "read", { path: ".env" }),
        call("grep", "grep", { pattern: "ANTHROPIC" }),
        call("edit", "edit", { path: ".env", edits: [{ oldText: "OTHER=1", newText: "OTHER=2" }] }),
        // A model that somehow knows the key and writes it: the file gets it, nothing else shows it.
        call("write", "write", { path: "copy.env", content: `KEY=${KEY}\n` }),
        ...[1, 9, 20, KEY.length - 1].map((cut) => call(`split${cut}`, "bash", { command: splitPrint(cut) })),
        call("env", "bash", { command: "env" }),
        call("long", "bash", { command: LONG }),
        // Five characters per delta: the key is cut across many.
        { text: `Your key is ${KEY}, and again:${KEY}` },
      );
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "look at .env" }] });
      expect(stopReason).toBe("end_turn");
      const updates = client.updates(sessionId);
      for (const id of ["read", "grep", "edit", "write", "split1", "split9", "split20", `split${KEY.length - 1}`, "env", "long"]) {
        expect(finalStatus(updates, id)).toBe("completed");
      }
      // The tools did their work and the editor saw it, with the key hidden.
      expect(JSON.stringify(toolEvents(updates, "read"))).toContain("ANTHROPIC_API_KEY=[redacted]");
      expect(JSON.stringify(toolEvents(updates, "edit"))).toContain("ANTHROPIC_API_KEY=[redacted]\\nOTHER=2");
      expect(readFileSync(join(sandbox.project, ".env"), "utf8")).toBe(`ANTHROPIC_API_KEY=${KEY}\nOTHER=2\n`);
      expect(readFileSync(written, "utf8")).toBe(`KEY=${KEY}\n`);
      expect(answers.requests.map((r) => r.toolCall.toolCallId)).toContain("edit");
      expect(JSON.stringify(toolEvents(updates, "split9"))).toContain("[redacted]");
      const saved = /Full output: ([^\]\\"]+)/.exec(JSON.stringify(toolEvents(updates, "long").at(-1)))?.[1];
      expect(saved).toBeDefined();
      expect(saved!.startsWith(sandbox.home)).toBe(true);
      expect(readFileSync(saved!, "utf8")).toContain("20000\n[redacted]\nend");

      // A provider error whose body quotes the key.
      server.push({ error: { status: 400, message: `invalid x-api-key ${KEY}` } });
      const error = await rpcError(client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "again" }] }), -32603);
      expect(error.message).toContain("invalid x-api-key");

      // An MCP server that was given a key in its environment and returns it as a tool result.
      const mcp = { name: "notes", command: BUN, args: [MCP_SERVER, "--stdio"], env: [{ name: "MCP_TEST_SECRET", value: MCP_KEY }] };
      const withMcp = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [mcp] });
      server.push(call("whoami", "mcp__notes__whoami", { env: "MCP_TEST_SECRET" }), { text: "done" });
      await client.agent.request(methods.agent.session.prompt, { sessionId: withMcp.sessionId, prompt: [{ type: "text", text: "who" }] });
      expect(JSON.stringify(toolEvents(client.updates(withMcp.sessionId), "whoami"))).toContain("[redacted]");
      await waitFor(() => proc.stderr().includes("mcp-test-server: ready on stdio"));

      // Deleting the session deletes its saved output.
      await client.agent.request(methods.agent.session.delete, { sessionId });
      expect(existsSync(saved!)).toBe(false);
    } finally {
      client.close();
      proc.stdin.close().catch(() => undefined);
      await Promise.race([proc.exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      proc.child.kill("SIGKILL");
    }
    await collected.catch(() => undefined);
    try {
      expect(stdout).toContain("[redacted]");
      for (const secret of [KEY, MCP_KEY]) {
        expect(stdout).not.toContain(secret);
        expect(proc.stderr()).not.toContain(secret);
      }
      // Session files, saved outputs and anything in the temp directory: only the user's own files hold the key.
      const files = filesUnder(sandbox.root, [sandbox.project]);
      expect(files.some((file) => file.endsWith(".jsonl"))).toBe(true);
      for (const file of files) {
        const text = readFileSync(file, "utf8");
        for (const secret of [KEY, MCP_KEY]) expect({ file, leaked: text.includes(secret) }).toEqual({ file, leaked: false });
      }
    } finally {
      sandbox.cleanup();
    }
  }, 90_000);

  test("--no-session keeps saved output in a private temp directory that is removed at exit", async () => {
    const sandbox = makeSandbox();
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, ACP_EDGE_HOME: sandbox.home, TMPDIR: sandbox.root };
    const proc = spawnAgent(runtime, ["agent", "stdio", "--no-session", "--approval-mode", "yolo", "--model", "anthropic/claude-sonnet-4-5"], { env });
    const [forClient, forCheck] = proc.stdout.tee();
    let stdout = "";
    const collected = forCheck.pipeThrough(new TextDecoderStream()).pipeTo(new WritableStream({ write: (text) => void (stdout += text) }));
    const client = connectStream(acp.ndJsonStream(proc.stdin, forClient));
    try {
      await initialize(client);
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      server.push(call("long", "bash", { command: LONG }), { text: "done" });
      await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "run" }] });
      const saved = /Full output: ([^\]\\"]+)/.exec(JSON.stringify(toolEvents(client.updates(sessionId), "long").at(-1)))?.[1];
      expect(saved).toBeDefined();
      expect(saved!.startsWith(join(sandbox.root, "acp-edge-"))).toBe(true);
      expect(statSync(join(saved!, "..", "..")).mode & 0o077).toBe(0);
      expect(readFileSync(saved!, "utf8")).toContain("20000\n[redacted]\nend");
      client.close();
      await proc.stdin.close().catch(() => undefined);
      expect((await proc.exited).code).toBe(0);
      await collected.catch(() => undefined);
      expect(existsSync(join(saved!, "..", ".."))).toBe(false);
      expect(stdout).not.toContain(KEY);
    } finally {
      client.close();
      proc.child.kill("SIGKILL");
      sandbox.cleanup();
    }
  }, 60_000);
});
