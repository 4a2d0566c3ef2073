/**
 * Editor delegation: with `fs` and `terminal` advertised, reads see unsaved
 * buffers, writes go through the editor, and commands run in its terminals
 * (always released). Without them, not one `fs/*` or `terminal/*` request
 * is sent.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { EditorTerminals, editorFs } from "../helpers/editor-capabilities.ts";
import { processGone } from "../helpers/processes.ts";
import { finalStatus, startScenario, toolEvents, toolText } from "../helpers/scenario.ts";

const script = [
  { toolCalls: [{ id: "r1", name: "read", input: { path: "notes.txt" } }] },
  { toolCalls: [{ id: "e1", name: "edit", input: { path: "notes.txt", edits: [{ oldText: "unsaved", newText: "saved" }] } }] },
  { toolCalls: [{ id: "b1", name: "bash", input: { command: "echo from-the-command; exit 4" } }] },
  { text: "done" },
];

describe.each(RUNTIMES)("delegation on %s", (runtime) => {
  test("a client with fs and terminal: buffers are read, writes and commands go through the editor", async () => {
    const fs = editorFs();
    const terminals = new EditorTerminals();
    const s = await startScenario(runtime, {
      script,
      args: ["--approval-mode", "yolo"],
      capabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      files: { "project/notes.txt": "on disk\n" },
      fs,
      terminals,
    });
    try {
      const notes = join(s.sandbox.project, "notes.txt");
      fs.buffers.set(notes, "unsaved edit in the buffer\n");
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(toolText(s.updates(), "r1")).toContain("unsaved edit in the buffer");
      expect(fs.reads).toContain(notes);
      expect(fs.writes).toEqual([{ path: notes, content: "saved edit in the buffer\n" }]);
      expect(readFileSync(notes, "utf8")).toBe("saved edit in the buffer\n");
      expect(JSON.stringify(toolEvents(s.updates(), "e1").at(-1))).toContain('"oldText":"unsaved edit in the buffer\\n"');

      expect(terminals.created).toHaveLength(1);
      expect(terminals.created[0]).toMatchObject({ sessionId: s.sessionId, args: ["-c", "echo from-the-command; exit 4"], cwd: s.sandbox.project });
      expect(terminals.released).toEqual(["term_1"]);
      const bashEvents = toolEvents(s.updates(), "b1");
      expect(bashEvents.some((u) => JSON.stringify(u).includes('{"type":"terminal","terminalId":"term_1"}'))).toBe(true);
      expect(finalStatus(s.updates(), "b1")).toBe("failed");
      const last = bashEvents.at(-1) as { rawOutput?: unknown; _meta?: Record<string, { exitCode?: number }> };
      expect(last._meta?.["acp-edge/summary"]?.exitCode).toBe(4);
      // What the model was told, terminal output included, while the content stays the editor's terminal.
      expect(JSON.stringify(last.rawOutput)).toContain("from-the-command");
      expect(s.client.clientRequests).toEqual(expect.arrayContaining(["fs/read_text_file", "fs/write_text_file", "terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"]));
    } finally {
      s.close();
    }
  });

  test("cancelling a command in an editor terminal kills and releases it", async () => {
    const terminals = new EditorTerminals();
    const s = await startScenario(runtime, {
      script: [{ toolCalls: [{ id: "slow", name: "bash", input: { command: "echo $$ > term.pid; sleep 30" } }] }, { text: "never" }],
      args: ["--approval-mode", "yolo"],
      capabilities: { terminal: true },
      terminals,
    });
    try {
      const turn = s.prompt("go");
      const pidFile = join(s.sandbox.project, "term.pid");
      await waitFor(() => { try { return readFileSync(pidFile, "utf8").trim() !== ""; } catch { return false; } }, 10_000, "the terminal command");
      const pid = Number(readFileSync(pidFile, "utf8"));
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      await waitFor(() => terminals.released.length === 1, 5000, "the terminal to be released");
      expect(s.client.clientRequests).toContain("terminal/kill");
      await waitFor(() => processGone(pid), 5000, "the command to end");
    } finally {
      s.close();
    }
  });

  test("a client that advertises nothing is never sent fs or terminal requests", async () => {
    const s = await startScenario(runtime, { script, args: ["--approval-mode", "yolo"], files: { "project/notes.txt": "unsaved on disk\n" } });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(readFileSync(join(s.sandbox.project, "notes.txt"), "utf8")).toBe("saved on disk\n");
      expect(toolText(s.updates(), "b1")).toContain("from-the-command");
      expect(s.client.clientRequests.filter((m) => m.startsWith("fs/") || m.startsWith("terminal/"))).toEqual([]);
    } finally {
      s.close();
    }
  });
});
