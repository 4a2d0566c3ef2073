/**
 * A file rewind through the editor that owns the files: when the client reads
 * and writes files for the agent (`fs/read_text_file`, `fs/write_text_file`),
 * `_session/rewind_files` and `/undo` put text files back through it (its
 * buffers and undo see the change), check "as the agent left it" against
 * what it holds (an unsaved buffer is the user's latest), and remove a file
 * the agent created on disk, saying so. Over stdio against the fake model
 * server, with a test editor doing real file work, on every runtime.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentText } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { editorFs } from "../helpers/editor-capabilities.ts";

import { fakeModelSuite, fingerprint, promptWithId, rewindFiles } from "../helpers/rewind-requests.ts";
import { startAgent } from "../helpers/session-agent.ts";

const write = (id: string, path: string, content: string) => ({ id, name: "write", input: { path, content } });
const edit = (id: string, path: string, oldText: string, newText: string) => ({ id, name: "edit", input: { path, edits: [{ oldText, newText }] } });

describe.each(RUNTIMES)("rewinding files through the editor on %s", (runtime) => {
  const suite = fakeModelSuite();
  const at = (relative: string) => join(suite.sandbox.project, relative);
  const disk = (relative: string) => readFileSync(at(relative), "utf8");

  test("_session/rewind_files writes through the editor, sees its unsaved buffer as the user's, and removes a created file on disk saying so", async () => {
    suite.sandbox.write("project/restored.txt", "original\n");
    suite.sandbox.write("project/buffered.txt", "original buffered\n");
    const fs = editorFs();
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"], fs, capabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    try {
      const { sessionId } = await agent.newSession();
      suite.server.push(
        { toolCalls: [write("w1", "restored.txt", "the agent's\n"), write("w2", "created.txt", "created\n"), edit("e1", "buffered.txt", "original", "agent")] },
        { text: "done" },
      );
      const sent = await promptWithId(agent, sessionId, "change files");
      expect(disk("buffered.txt")).toBe("agent buffered\n");
      // The user types into the editor without saving: the disk still holds what the agent wrote.
      fs.buffers.set(at("buffered.txt"), "agent buffered, and the user's unsaved line\n");

      const point = { messageId: sent.userMessageId, messageFingerprint: fingerprint("change files"), messageOccurrence: 1 };
      const writes = fs.writes.length;
      const dry = await rewindFiles(agent, { sessionId, beforeMessage: point, dryRun: true });
      expect(fs.writes.length).toBe(writes);
      const real = await rewindFiles(agent, { sessionId, beforeMessage: point });
      for (const answer of [dry, real]) {
        const byName = Object.fromEntries(answer.files.map((f) => [f.path.split("/").pop(), f]));
        expect(byName["restored.txt"]).toMatchObject({ action: "restore", via: "editor" });
        expect(byName["created.txt"]).toMatchObject({ action: "delete", via: "disk" });
        expect(byName["created.txt"]!.note).toContain("removed on disk");
        expect(byName["buffered.txt"]).toMatchObject({ action: "conflict", applied: false });
      }
      // Put back through the editor, under the path the agent used; nothing else written through it.
      expect(fs.writes.slice(writes)).toEqual([{ path: at("restored.txt"), content: "original\n" }]);
      expect(disk("restored.txt")).toBe("original\n");
      expect(existsSync(at("created.txt"))).toBe(false);
      // The user's unsaved buffer is left to the user, and so is the file behind it.
      expect(fs.buffers.get(at("buffered.txt"))).toBe("agent buffered, and the user's unsaved line\n");
      expect(disk("buffered.txt")).toBe("agent buffered\n");
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("/undo restores through the editor and says where each file went", async () => {
    suite.sandbox.write("project/undone.txt", "before undo\n");
    const fs = editorFs();
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"], fs, capabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    try {
      const { sessionId } = await agent.newSession();
      suite.server.push({ toolCalls: [edit("e2", "undone.txt", "before", "after"), write("w3", "fresh.txt", "fresh\n")] }, { text: "done" });
      await promptWithId(agent, sessionId, "edit it");
      const writes = fs.writes.length;
      const before = agent.client.updates(sessionId).length;
      await agent.prompt(sessionId, "/undo");
      const said = agentText(agent.client.updates(sessionId).slice(before));
      expect(said).toContain(`restored in the editor: ${at("undone.txt")}`);
      expect(said).toContain(`removed (the agent created it): ${at("fresh.txt")} — removed on disk`);
      expect(fs.writes.slice(writes)).toEqual([{ path: at("undone.txt"), content: "before undo\n" }]);
      expect(existsSync(at("fresh.txt"))).toBe(false);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);
});
