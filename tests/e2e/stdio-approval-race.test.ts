/**
 * What was approved is what is written: when the file changes while the
 * permission request for an edit or a write is pending, approving it writes
 * nothing and the model gets an error telling it to read the file again;
 * on the local disk and through the editor's `fs/*` (an unsaved buffer).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { editorFs } from "../helpers/editor-capabilities.ts";
import { answering, finalStatus, startScenario, toolText } from "../helpers/scenario.ts";

const edit = (id: string, path: string, oldText: string, newText: string) => ({ toolCalls: [{ id, name: "edit", input: { path, edits: [{ oldText, newText }] } }] });
const write = (id: string, path: string, content: string) => ({ toolCalls: [{ id, name: "write", input: { path, content } }] });
const done = { text: "done" };
const USER_CHANGE = "IMPORTANT USER CHANGE foo\n";

/** Approves every request, after `change` has run while it was pending. */
const approveAfter = (change: (index: number) => void) =>
  answering((_request, index) => {
    change(index);
    return "allow_once";
  });

describe.each(RUNTIMES)("approval races on %s", (runtime) => {
  test("an edit approved after the file changed on disk writes nothing and tells the model", async () => {
    let notes = "";
    const answers = approveAfter(() => writeFileSync(notes, USER_CHANGE));
    const s = await startScenario(runtime, { script: [edit("e1", "notes.txt", "line1 foo", "line1 bar"), done], files: { "project/notes.txt": "line1 foo\n" }, ...answers });
    notes = join(s.sandbox.project, "notes.txt");
    try {
      expect((await s.prompt("edit")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(1);
      expect(JSON.stringify(answers.requests[0]!.toolCall.content)).toContain('"oldText":"line1 foo\\n","newText":"line1 bar\\n"');
      expect(readFileSync(notes, "utf8")).toBe(USER_CHANGE);
      expect(finalStatus(s.updates(), "e1")).toBe("failed");
      expect(toolText(s.updates(), "e1")).toContain("notes.txt changed after this edit was previewed for approval, so it was not written");
      expect(toolText(s.updates(), "e1")).toContain("Read notes.txt again");
    } finally {
      s.close();
    }
  });

  test("a write approved after its file changed or appeared writes nothing; the same content is no change", async () => {
    let project = "";
    const changes = [
      () => writeFileSync(join(project, "changed.txt"), USER_CHANGE),
      () => writeFileSync(join(project, "appeared.txt"), USER_CHANGE),
      () => writeFileSync(join(project, "steady.txt"), "old\n"), // rewritten with the same content: still what was approved
    ];
    const answers = approveAfter((index) => changes[index]?.());
    const s = await startScenario(runtime, {
      script: [write("w1", "changed.txt", "mine\n"), write("w2", "appeared.txt", "mine\n"), write("w3", "steady.txt", "mine\n"), done],
      files: { "project/changed.txt": "old\n", "project/steady.txt": "old\n" },
      ...answers,
    });
    project = s.sandbox.project;
    try {
      expect((await s.prompt("write")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(3);
      expect(readFileSync(join(project, "changed.txt"), "utf8")).toBe(USER_CHANGE);
      expect(readFileSync(join(project, "appeared.txt"), "utf8")).toBe(USER_CHANGE);
      expect(readFileSync(join(project, "steady.txt"), "utf8")).toBe("mine\n");
      expect(toolText(s.updates(), "w1")).toContain("changed.txt changed after this write was previewed for approval");
      expect(toolText(s.updates(), "w2")).toContain("appeared.txt was created after this write was previewed for approval");
      expect(finalStatus(s.updates(), "w3")).toBe("completed");
    } finally {
      s.close();
    }
  });

  test("a write approved after its file was deleted does not recreate it", async () => {
    let gone = "";
    const answers = approveAfter(() => rmSync(gone));
    const s = await startScenario(runtime, { script: [write("w1", "gone.txt", "mine\n"), done], files: { "project/gone.txt": "old\n" }, ...answers });
    gone = join(s.sandbox.project, "gone.txt");
    try {
      await s.prompt("write");
      expect(existsSync(gone)).toBe(false);
      expect(toolText(s.updates(), "w1")).toContain("gone.txt was deleted after this write was previewed for approval");
    } finally {
      s.close();
    }
  });

  test("with editor fs: a buffer changed while the request was pending is not overwritten", async () => {
    const fs = editorFs();
    let project = "";
    const answers = approveAfter((index) => fs.buffers.set(join(project, index === 0 ? "notes.txt" : "draft.txt"), USER_CHANGE));
    const s = await startScenario(runtime, {
      script: [edit("e1", "notes.txt", "line1 foo", "line1 bar"), write("w1", "draft.txt", "mine\n"), done],
      capabilities: { fs: { readTextFile: true, writeTextFile: true } },
      files: { "project/notes.txt": "line1 foo\n", "project/draft.txt": "old\n" },
      fs,
      ...answers,
    });
    project = s.sandbox.project;
    try {
      expect((await s.prompt("edit and write")).stopReason).toBe("end_turn");
      expect(answers.requests).toHaveLength(2);
      expect(fs.writes).toEqual([]);
      expect(fs.reads).toContain(join(project, "notes.txt"));
      expect(fs.buffers.get(join(project, "notes.txt"))).toBe(USER_CHANGE);
      expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("line1 foo\n");
      expect(toolText(s.updates(), "e1")).toContain("notes.txt changed after this edit was previewed for approval");
      expect(toolText(s.updates(), "w1")).toContain("draft.txt changed after this write was previewed for approval");
    } finally {
      s.close();
    }
  });
});
