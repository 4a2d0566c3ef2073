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
import { acp, agentText, connectStream, initialize } from "../helpers/acp-client.ts";
import { makeSandbox, ROOT, RUNTIMES, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";
import { rpcError, waitFor } from "../helpers/expect-error.ts";
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from "../helpers/fake-model-server.ts";
import { answering, finalStatus, toolEvents } from "../helpers/scenario.ts";
import { EditorTerminals, editorFs } from "../helpers/editor-capabilities.ts";

const { methods } = acp;
const KEY = "sk-ant-e2e-PLANTED-7c1d9f2a4b6e8d0f";
const MCP_KEY = "mcp-e2e-PLANTED-5e3b1a9c7d";
/** The key of a provider no session uses: registered all the same. */
const OTHER_KEY = "sk-openai-e2e-PLANTED-0a8f6e4c2b";
const SECRETS = [KEY, MCP_KEY, OTHER_KEY];
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

/** Session files, saved outputs, anything in the temp directory: only the user's own project files may hold a key. Returns the files checked. */
function noSecretOnDisk(sandbox: Sandbox): string[] {
  const files = filesUnder(sandbox.root, [sandbox.project]);
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const secret of SECRETS) expect({ file, leaked: text.includes(secret) }).toEqual({ file, leaked: false });
  }
  return files;
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
    const env = { ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: OTHER_KEY, ANTHROPIC_BASE_URL: server.url, ACP_EDGE_HOME: sandbox.home, TMPDIR: sandbox.root };
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
      // The client renders terminals: command output arrives as raw deltas, one piece each.
      await initialize(client, { _meta: { terminal_output: true } });
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
      // Streamed pieces, put back together, still hide the key.
      for (const id of ["split1", "split9", "split20", `split${KEY.length - 1}`, "env", "long"]) {
        const deltas = toolEvents(updates, id).map((u) => (u._meta as { terminal_output?: { data: string } } | undefined)?.terminal_output?.data ?? "");
        expect(deltas.filter(Boolean).length).toBeGreaterThan(0);
        const joined = deltas.join("");
        if (id.startsWith("split")) expect(joined).toBe("[redacted]\n");
        for (const secret of SECRETS) expect(joined).not.toContain(secret);
      }
      const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
      expect(chunks.length).toBeGreaterThan(2);
      expect(agentText(updates)).toBe("Your key is [redacted], and again:[redacted]");
      const saved = /"fullOutputPath":"([^"]+)"/.exec(JSON.stringify(toolEvents(updates, "long")))?.[1];
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

      // Session files and saved outputs, while the sessions exist.
      const files = noSecretOnDisk(sandbox);
      expect(files.filter((file) => file.endsWith(".jsonl"))).toHaveLength(2);
      expect(files).toContain(saved!);

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
      for (const secret of SECRETS) {
        expect(stdout).not.toContain(secret);
        expect(proc.stderr()).not.toContain(secret);
      }
      // And after exit, whatever is left.
      expect(noSecretOnDisk(sandbox).some((file) => file.endsWith(".jsonl"))).toBe(true);
    } finally {
      sandbox.cleanup();
    }
  }, 90_000);

  test("--no-session keeps saved output in a private temp directory that is removed at exit", async () => {
    const sandbox = makeSandbox();
    // The key comes from auth.json this time.
    writeFileSync(join(sandbox.home, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: KEY } }), { mode: 0o600 });
    const env = { ANTHROPIC_BASE_URL: server.url, ACP_EDGE_HOME: sandbox.home, TMPDIR: sandbox.root };
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
      expect(server.requests.at(-1)!.headers["x-api-key"]).toBe(KEY);
      expect(stdout).not.toContain(KEY);
      expect(proc.stderr()).not.toContain(KEY);
    } finally {
      client.close();
      proc.child.kill("SIGKILL");
      sandbox.cleanup();
    }
  }, 60_000);

  test("an editor that writes files and runs commands: the key reaches only the file it writes", async () => {
    const sandbox = makeSandbox();
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, ACP_EDGE_HOME: sandbox.home, TMPDIR: sandbox.root };
    sandbox.write("project/.env", `ANTHROPIC_API_KEY=${KEY}\n`);
    const proc = spawnAgent(runtime, ["agent", "stdio", "--approval-mode", "yolo", "--model", "anthropic/claude-sonnet-4-5"], { env });
    const fs = editorFs();
    const client = connectStream(acp.ndJsonStream(proc.stdin, proc.stdout), { fs, terminals: new EditorTerminals() });
    try {
      await initialize(client, { fs: { readTextFile: true, writeTextFile: true }, terminal: true });
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      server.push(
        call("edit", "edit", { path: ".env", edits: [{ oldText: "ANTHROPIC_API_KEY=", newText: "export ANTHROPIC_API_KEY=" }] }),
        call("cat", "bash", { command: "cat .env" }),
        { text: "done" },
      );
      await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "export it" }] });
      // The editor wrote the user's file whole: hiding the key there would have destroyed it.
      expect(fs.writes).toEqual([{ path: join(sandbox.project, ".env"), content: `export ANTHROPIC_API_KEY=${KEY}\n` }]);
      expect(readFileSync(join(sandbox.project, ".env"), "utf8")).toBe(`export ANTHROPIC_API_KEY=${KEY}\n`);
      // The editor's terminal showed the command's output itself; what the agent took from it (the model's tool result) hides the key.
      expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("export ANTHROPIC_API_KEY=[redacted]");
      const others = client.received.filter((m) => m.method !== "fs/write_text_file");
      expect(JSON.stringify(others)).not.toContain(KEY);
    } finally {
      client.close();
      proc.child.kill("SIGKILL");
      sandbox.cleanup();
    }
  }, 60_000);
});
