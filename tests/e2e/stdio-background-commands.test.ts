/**
 * Commands that keep running: a scripted model starts a small HTTP server
 * with `bash` and `background: true`, sees it listening through
 * `bash_output`, reaches it from a foreground `bash` call and ends it with
 * `bash_stop`; one left running ends with the agent (stdin closed, SIGKILL);
 * with a terminal-capable client the same goes through editor terminals;
 * bad ids, bad waits, too many commands and read-only mode are refused.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { acp, initialize } from "../helpers/acp-client.ts";
import { makeSandbox, NODE, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { EditorTerminals } from "../helpers/editor-capabilities.ts";
import { killProcessesWithEnv, processesWithEnv, processGone } from "../helpers/processes.ts";
import { finalStatus, startScenario, toolEvents, toolText, type Scenario } from "../helpers/scenario.ts";
import { connectWs, startServe, TOKEN } from "../helpers/serve-process.ts";

/** Listens only once `go` exists, then says so in one line and leaves its port and pid in files. */
const SERVER = `
const fs = require("node:fs");
const http = require("node:http");
const wait = setInterval(() => {
  if (!fs.existsSync("go")) return;
  clearInterval(wait);
  const server = http.createServer((_req, res) => res.end("hello from the background"));
  server.listen(0, "127.0.0.1", () => {
    const port = server.address().port;
    fs.writeFileSync("port.txt", String(port));
    fs.writeFileSync("server.pid", String(process.pid));
    process.stdout.write("listening on " + port + "\\n");
  });
}, 20);
`;

const FETCH = `"${NODE}" -e "fetch('http://127.0.0.1:' + require('fs').readFileSync('port.txt', 'utf8')).then((r) => r.text()).then(console.log)"`;

/** An editor that never answers `terminal/kill`, nor `terminal/output` once `silentOutput` is set. */
class SilentTerminals extends EditorTerminals {
  silentOutput = false;
  override output(params: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    return this.silentOutput ? (new Promise(() => undefined) as never) : super.output(params);
  }
  override kill(_params: acp.KillTerminalRequest): acp.KillTerminalResponse {
    return new Promise(() => undefined) as never;
  }
}

function uniqueMarker(): string {
  return `BACKGROUND_TEST_MARK=${crypto.randomUUID()}`;
}

function serverCommand(marker: string, go = false): string {
  return `export ${marker}; ${go ? "touch go; " : ""}exec "${NODE}" server.cjs`;
}

/** The whole dance: start, release it, wait for it to listen, reach it, stop it. */
function fullScript(marker: string) {
  return [
    { toolCalls: [{ id: "start", name: "bash", input: { command: serverCommand(marker), background: true } }] },
    { toolCalls: [{ id: "go", name: "bash", input: { command: "touch go" } }] },
    { toolCalls: [{ id: "out", name: "bash_output", input: { id: "{{id:1}}", wait_ms: 30_000 } }] },
    { toolCalls: [{ id: "reach", name: "bash", input: { command: FETCH } }] },
    { toolCalls: [{ id: "stop", name: "bash_stop", input: { id: "{{id:1}}" } }] },
    { toolCalls: [{ id: "again", name: "bash_output", input: { id: "{{id:1}}" } }] },
    { text: "done" },
  ];
}

async function portRefused(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`);
    return false;
  } catch {
    return true;
  }
}

/** The id a background start reported: random, `bg-` and eight hex digits. */
function backgroundId(text: string): string {
  const id = /id: (bg-[0-9a-f]{8})\b/.exec(text)?.[1];
  expect(id).toBeDefined();
  return id!;
}

function pidIn(s: Scenario): number {
  return Number(readFileSync(join(s.sandbox.project, "server.pid"), "utf8"));
}

async function checkTheDance(s: Scenario, marker: string): Promise<void> {
  expect((await s.prompt("serve it")).stopReason).toBe("end_turn");
  const updates = s.updates();
  expect(finalStatus(updates, "start")).toBe("completed");
  const id = backgroundId(toolText(updates, "start"));
  expect(toolText(updates, "out")).toContain("status: running");
  expect(toolText(updates, "out")).toContain("listening on ");
  expect(toolText(updates, "reach")).toContain("hello from the background");
  expect(finalStatus(updates, "stop")).toBe("completed");
  expect(toolText(updates, "stop")).toContain("Stopped.");
  // Stopped and forgotten: a second read names no command.
  expect(finalStatus(updates, "again")).toBe("failed");
  expect(toolText(updates, "again")).toContain(`No background command has the id \\"${id}\\"`);
  const port = Number(readFileSync(join(s.sandbox.project, "port.txt"), "utf8"));
  await waitFor(() => processGone(pidIn(s)), 5000, "the server to end");
  expect(await portRefused(port)).toBe(true);
  expect(processesWithEnv(marker)).toEqual([]);
}

async function startedAndLeft(s: Scenario): Promise<number> {
  expect((await s.prompt("serve it")).stopReason).toBe("end_turn");
  await waitFor(() => existsSync(join(s.sandbox.project, "server.pid")), 15_000, "the server to listen");
  const pid = pidIn(s);
  expect(processGone(pid)).toBe(false);
  return pid;
}

/** What `/session` says. */
async function sessionCommandText(s: Scenario): Promise<string> {
  const from = s.updates().length;
  await s.prompt("/session");
  return s
    .updates(from)
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");
}

type ListedCommand = { id: string; running: boolean; exit?: { code: number | null; signal: string | null } };

/** `session/status` of the scenario's session. */
async function sessionStatus(s: Scenario): Promise<{ status: string; backgroundCommands: ListedCommand[] }> {
  return await (s.client.agent.request as (m: string, p: unknown) => Promise<any>)("session/status", { sessionId: s.sessionId });
}

/** The end of input ends the agent cleanly, and every command marked `marker` with it. */
async function endsWithInput(s: Scenario, marker: string): Promise<void> {
  s.proc.child.stdin!.end();
  expect((await s.proc.exited).code).toBe(0);
  expect(processesWithEnv(marker)).toEqual([]);
}

describe.each(RUNTIMES)("background commands on %s", (runtime) => {
  test("a server started in the background is read, reached and stopped, port and process gone", async () => {
    const marker = uniqueMarker();
    const s = await startScenario(runtime, { script: fullScript(marker), args: ["--approval-mode", "yolo"], files: { "project/server.cjs": SERVER } });
    try {
      await checkTheDance(s, marker);
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("a background command left running ends with the agent when the client closes stdin", async () => {
    const marker = uniqueMarker();
    const script = [{ toolCalls: [{ id: "start", name: "bash", input: { command: serverCommand(marker, true), background: true } }] }, { text: "left running" }];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"], files: { "project/server.cjs": SERVER } });
    try {
      const pid = await startedAndLeft(s);
      s.proc.child.stdin!.end();
      expect((await s.proc.exited).code).toBe(0);
      await waitFor(() => processGone(pid), 5000, "the server to end with the agent");
      expect(processesWithEnv(marker)).toEqual([]);
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("background commands left running end when the agent is killed with SIGKILL", async () => {
    const marker = uniqueMarker();
    // Two, so that neither's watchdog is held open by a pipe end the other inherited.
    const script = [
      { toolCalls: [{ id: "other", name: "bash", input: { command: `export ${marker}; exec sleep 299`, background: true } }] },
      { toolCalls: [{ id: "start", name: "bash", input: { command: serverCommand(marker, true), background: true } }] },
      { text: "left running" },
    ];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"], files: { "project/server.cjs": SERVER } });
    try {
      const pid = await startedAndLeft(s);
      s.proc.child.kill("SIGKILL");
      await s.proc.exited;
      await waitFor(() => processGone(pid), 10_000, "the server to end after the agent was killed");
      await waitFor(() => processesWithEnv(marker).length === 0, 10_000, "every marked process to end");
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("a command that kills the rest of its process group (kill 0, kill -- -$$, each member) still ends when the agent is killed with SIGKILL, with the child it moved out of its group", async () => {
    const marker = uniqueMarker();
    // Ignores SIGTERM, starts a child in a session of its own, kills every other process of its group, signals the group twice, says so, then waits as a marked sleep.
    const command = [
      `export ${marker}`,
      "trap '' TERM HUP",
      // A child that left the group and the session: found by its marker.
      "me=$$",
      "setsid sleep 297 < /dev/null > /dev/null 2>&1 &",
      // Left the group once its group is no longer the command's (setsid runs after the fork).
      'while read -r pid comm state ppid group rest < "/proc/$!/stat" && [ "$group" = "$me" ]; do sleep 0.01; done',
      'for stat in /proc/[0-9]*/stat; do read -r pid comm state ppid group rest < "$stat" 2>/dev/null || continue; if [ "$group" = "$me" ] && [ "$pid" != "$me" ]; then kill -KILL "$pid" 2>/dev/null; fi; done',
      "kill -TERM 0",
      "kill -TERM -- -$$",
      "echo alone > isolated.txt",
      "exec sleep 298",
    ].join("\n");
    const script = [{ toolCalls: [{ id: "start", name: "bash", input: { command, background: true } }] }, { text: "left running" }];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"] });
    try {
      expect((await s.prompt("start it")).stopReason).toBe("end_turn");
      await waitFor(() => existsSync(join(s.sandbox.project, "isolated.txt")), 20_000, "the command to have cleared its group");
      await waitFor(() => processesWithEnv(marker).length === 2, 10_000, "the command and the child that left its group");
      s.proc.child.kill("SIGKILL");
      await s.proc.exited;
      // SIGTERM is ignored: the SIGKILL after the grace ends it.
      await waitFor(() => processesWithEnv(marker).length === 0, 15_000, "the command to end after the agent was killed");
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("closing the session ends a background command it left running; the agent goes on", async () => {
    const marker = uniqueMarker();
    const script = [{ toolCalls: [{ id: "start", name: "bash", input: { command: serverCommand(marker, true), background: true } }] }, { text: "left running" }];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"], files: { "project/server.cjs": SERVER } });
    try {
      const pid = await startedAndLeft(s);
      await s.client.agent.request(acp.methods.agent.session.close, { sessionId: s.sessionId });
      await waitFor(() => processGone(pid), 5000, "the server to end with its session");
      expect(processesWithEnv(marker)).toEqual([]);
      expect(s.proc.child.exitCode).toBeNull();
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("agent serve draining on SIGTERM ends the background commands of its sessions", async () => {
    const marker = uniqueMarker();
    const sandbox = makeSandbox();
    sandbox.write("project/server.cjs", SERVER);
    const script = sandbox.write(
      "script.json",
      JSON.stringify([{ toolCalls: [{ id: "start", name: "bash", input: { command: serverCommand(marker, true), background: true } }] }, { text: "left running" }]),
    );
    const server = await startServe(runtime, sandbox, { script, args: ["--model", "faux/script", "--approval-mode", "yolo"] });
    try {
      const client = connectWs(`${server.wsUrl}/acp`, TOKEN);
      await initialize(client);
      const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      const answer = await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "serve it" }] });
      expect(answer.stopReason).toBe("end_turn");
      const pidFile = join(sandbox.project, "server.pid");
      await waitFor(() => existsSync(pidFile), 15_000, "the server to listen");
      const pid = Number(readFileSync(pidFile, "utf8"));
      expect(processGone(pid)).toBe(false);
      expect(await server.stop("SIGTERM")).toBe(0);
      await waitFor(() => processGone(pid), 5000, "the server to end with agent serve");
      expect(processesWithEnv(marker)).toEqual([]);
    } finally {
      server.proc.child.kill("SIGKILL");
      killProcessesWithEnv(marker);
      sandbox.cleanup();
    }
  }, 60_000);

  test("with a terminal-capable client the command is an editor terminal: created, read, killed and released", async () => {
    const marker = uniqueMarker();
    const terminals = new EditorTerminals();
    const s = await startScenario(runtime, {
      script: fullScript(marker),
      args: ["--approval-mode", "yolo"],
      capabilities: { terminal: true },
      terminals,
      files: { "project/server.cjs": SERVER },
    });
    try {
      await checkTheDance(s, marker);
      expect(terminals.created[0]).toMatchObject({ sessionId: s.sessionId, args: ["-c", serverCommand(marker)], cwd: s.sandbox.project });
      expect(terminals.released).toContain("term_1");
      // The editor shows the background terminal live in the call that started it.
      expect(toolEvents(s.updates(), "start").some((u) => JSON.stringify(u).includes('{"type":"terminal","terminalId":"term_1"}'))).toBe(true);
      expect(JSON.stringify(toolEvents(s.updates(), "start").at(-1))).toContain('"terminalId":"term_1"');
      expect(s.client.clientRequests).toEqual(expect.arrayContaining(["terminal/create", "terminal/output", "terminal/kill", "terminal/release"]));
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("bad ids, bad waits, a timeout, a ninth command and closing the session: refused or ended, never lost", async () => {
    const marker = uniqueMarker();
    const sleep = (n: number) => ({ toolCalls: [{ id: `s${n}`, name: "bash", input: { command: `export ${marker}; exec sleep 30${n}`, background: true } }] });
    const script = [
      { toolCalls: [{ id: "none", name: "bash_output", input: { id: "bg1" } }] },
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map(sleep),
      { toolCalls: [{ id: "unknown", name: "bash_stop", input: { id: "bg42\nrm -rf /" } }] },
      { toolCalls: [{ id: "negative", name: "bash_output", input: { id: "{{id:1}}", wait_ms: -5 } }] },
      { toolCalls: [{ id: "huge", name: "bash_output", input: { id: "{{id:1}}", wait_ms: 1e12 } }] },
      { toolCalls: [{ id: "nan", name: "bash_output", input: { id: "{{id:1}}", wait_ms: "soon" } }] },
      { toolCalls: [{ id: "timed", name: "bash", input: { command: "sleep 1", background: true, timeout: 5 } }] },
      { toolCalls: [{ id: "quiet", name: "bash_output", input: { id: " {{id:2}} " } }] },
      { text: "done" },
    ];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"] });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      const updates = s.updates();
      expect(finalStatus(updates, "none")).toBe("failed");
      expect(toolText(updates, "none")).toContain("No background command is running.");
      const ids = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => backgroundId(toolText(updates, `s${n}`)));
      expect(new Set(ids).size).toBe(8);
      expect(finalStatus(updates, "s9")).toBe("failed");
      expect(toolText(updates, "s9")).toContain("Already 8 background commands");
      expect(finalStatus(updates, "unknown")).toBe("failed");
      expect(toolText(updates, "unknown")).toContain(`Background commands: ${ids.join(", ")}.`);
      for (const id of ["negative", "huge", "nan"]) expect(finalStatus(updates, id)).toBe("failed");
      expect(toolText(updates, "negative")).toContain("Invalid wait_ms: -5");
      expect(toolText(updates, "huge")).toContain("Invalid wait_ms");
      expect(toolText(updates, "timed")).toContain("A background command has no timeout");
      expect(finalStatus(updates, "quiet")).toBe("completed");
      expect(toolText(updates, "quiet")).toContain("status: running");
      expect(processesWithEnv(marker)).toHaveLength(8);

      // `/session` lists what runs.
      const said = await sessionCommandText(s);
      expect(said).toContain("Background commands (8):");
      expect(said).toContain(`${ids[0]}: export`);
      // So does `session/status`.
      const status = await sessionStatus(s);
      expect(status.status).toBe("open");
      expect(status.backgroundCommands.map((c) => [c.id, c.running])).toEqual(ids.map((id) => [id, true]));
      await endsWithInput(s, marker);
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("a command that ends by itself shows as ended, with its code or signal, in session/status and /session before any read", async () => {
    const marker = uniqueMarker();
    const waitGo = "while [ ! -e go ]; do sleep 0.05; done";
    const script = [
      { toolCalls: [{ id: "code", name: "bash", input: { command: `export ${marker}; ${waitGo}; echo bye; exit 7`, background: true } }] },
      { toolCalls: [{ id: "killed", name: "bash", input: { command: `export ${marker}; ${waitGo}; kill -KILL $$`, background: true } }] },
      { toolCalls: [{ id: "runs", name: "bash", input: { command: `export ${marker}; exec sleep 300`, background: true } }] },
      { toolCalls: [{ id: "go", name: "bash", input: { command: "touch go" } }] },
      { text: "done" },
    ];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"] });
    try {
      expect((await s.prompt("start three")).stopReason).toBe("end_turn");
      const ids = ["code", "killed", "runs"].map((call) => backgroundId(toolText(s.updates(), call)));
      const status = async () => (await sessionStatus(s)).backgroundCommands;
      // The two ends arrive as exit events; nothing reads them (no bash_output call is made).
      await waitFor(async () => (await status()).filter((c) => !c.running).length === 2, 20_000, "both ends listed");
      const listed = await status();
      expect(listed.map((c) => [c.id, c.running, c.exit])).toEqual([
        [ids[0], false, { code: 7, signal: null }],
        [ids[1], false, { code: null, signal: "SIGKILL" }],
        [ids[2], true, undefined],
      ]);
      const said = await sessionCommandText(s);
      expect(said).toContain(`${ids[0]}: export`);
      expect(said).toMatch(new RegExp(`${ids[0]}: [^\n]*\\(exited with code 7\\)`));
      expect(said).toMatch(new RegExp(`${ids[1]}: [^\n]*\\(ended by signal SIGKILL\\)`));
      expect(said).toMatch(new RegExp(`${ids[2]}: [^\n]*\\(running for \\d+ s\\)`));
      await endsWithInput(s, marker);
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("a registered key a background command prints is hidden, also when split across reads", async () => {
    const key = "sk-openai-e2e-BACKGROUND-3f9a1c7e5d";
    // The second half waits for a file the model creates between two reads, so the halves are read apart.
    const command = `printf '%s' '${key.slice(0, 15)}'; while [ ! -e more ]; do sleep 0.05; done; printf '%s\\n' '${key.slice(15)}'; echo tail`;
    const script = [
      { toolCalls: [{ id: "start", name: "bash", input: { command, background: true } }] },
      { toolCalls: [{ id: "first", name: "bash_output", input: { id: "{{id:1}}" } }] },
      { toolCalls: [{ id: "more", name: "bash", input: { command: "touch more" } }] },
      { toolCalls: [{ id: "rest", name: "bash_output", input: { id: "{{id:1}}", wait_ms: 30_000 } }] },
      { text: "done" },
    ];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"], env: { OPENAI_API_KEY: key } });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      // What the command printed (its own line is the model's, and carries both halves apart).
      const seen = ["start", "first", "rest"].map((id) => JSON.stringify(toolEvents(s.updates(), id).filter((u) => u.sessionUpdate === "tool_call_update"))).join("\n");
      expect(seen).toContain("[redacted]");
      expect(seen).not.toContain(key);
      expect(seen).not.toContain(key.slice(15));
      expect(seen).not.toContain(key.slice(0, 15));
    } finally {
      s.close();
    }
  }, 60_000);

  test("with a terminal-capable client a registered key split across two refreshes is still hidden", async () => {
    const key = "sk-openai-e2e-TERMINAL-7c1e9b2a4f";
    // The second half waits for a file the model creates between two reads, so the editor is asked for the halves apart.
    const command = `printf '%s' '${key.slice(0, 15)}'; while [ ! -e more ]; do sleep 0.05; done; printf '%s\\n' '${key.slice(15)}'; echo tail`;
    const script = [
      { toolCalls: [{ id: "start", name: "bash", input: { command, background: true } }] },
      { toolCalls: [{ id: "first", name: "bash_output", input: { id: "{{id:1}}" } }] },
      { toolCalls: [{ id: "more", name: "bash", input: { command: "touch more" } }] },
      { toolCalls: [{ id: "rest", name: "bash_output", input: { id: "{{id:1}}", wait_ms: 30_000 } }] },
      { text: "done" },
    ];
    const terminals = new EditorTerminals();
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"], env: { OPENAI_API_KEY: key }, capabilities: { terminal: true }, terminals });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(terminals.created.length).toBeGreaterThan(0);
      const seen = ["start", "first", "rest"].map((id) => JSON.stringify(toolEvents(s.updates(), id).filter((u) => u.sessionUpdate === "tool_call_update"))).join("\n");
      expect(toolText(s.updates(), "rest")).toContain("tail");
      expect(seen).toContain("[redacted]");
      expect(seen).not.toContain(key);
      expect(seen).not.toContain(key.slice(15));
      expect(seen).not.toContain(key.slice(0, 15));
    } finally {
      s.close();
    }
  }, 60_000);

  test("an editor that never answers terminal/kill or terminal/output: session/cancel still ends bash_stop and bash_output", async () => {
    const marker = uniqueMarker();
    const terminals = new SilentTerminals();
    const script = [
      { toolCalls: [{ id: "a", name: "bash", input: { command: `export ${marker}; exec sleep 297`, background: true } }] },
      { toolCalls: [{ id: "b", name: "bash", input: { command: `export ${marker}; exec sleep 298`, background: true } }] },
      { toolCalls: [{ id: "stop", name: "bash_stop", input: { id: "{{id:1}}" } }] },
      { toolCalls: [{ id: "wait", name: "bash_output", input: { id: "{{id:2}}", wait_ms: 60_000 } }] },
      { text: "never reached" },
    ];
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"], capabilities: { terminal: true }, terminals });
    const asked = (method: string) => s.client.clientRequests.filter((m) => m === method).length;
    try {
      const stopping = s.prompt("start two, stop one");
      await waitFor(() => asked("terminal/kill") > 0, 30_000, "the agent to ask the editor to kill the terminal");
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await stopping).stopReason).toBe("cancelled");

      terminals.silentOutput = true;
      const before = asked("terminal/output");
      const waiting = s.prompt("wait for the other");
      await waitFor(() => asked("terminal/output") > before, 30_000, "the agent to ask the editor for output");
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await waiting).stopReason).toBe("cancelled");
    } finally {
      s.close();
      killProcessesWithEnv(marker);
    }
  }, 60_000);

  test("read-only mode without a sandbox refuses a background command before anything runs", async () => {
    const script = [{ toolCalls: [{ id: "start", name: "bash", input: { command: "touch started", background: true } }] }, { text: "done" }];
    // With a sandbox it runs confined instead (stdio-sandbox.test.ts).
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "read-only"], settings: { sandbox: "off" } });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(finalStatus(s.updates(), "start")).toBe("failed");
      expect(existsSync(join(s.sandbox.project, "started"))).toBe(false);
    } finally {
      s.close();
    }
  }, 30_000);
});
