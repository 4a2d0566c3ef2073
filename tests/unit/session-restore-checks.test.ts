import { describe, expect, test } from "bun:test";
import { checkEntry, undamagedEntries } from "../../src/sessions/journal/session-entry-check.ts";
import { MAX_ENTRY_DEPTH } from "../../src/sessions/journal/session-entry-schemas.ts";
import { replayUpdates } from "../../src/acp/updates/session-replay.ts";
import { restoreState } from "../../src/sessions/journal/session-restore.ts";
import type { StoredEntry } from "../../src/store/types.ts";

const user = (id: string, text: string): StoredEntry => ({ type: "message", messageId: id, message: { role: "user", content: [{ type: "text", text }] } });
const deep = (depth: number): unknown => JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`);

describe("restoring checked entries", () => {
  test("a damaged message keeps its place in the count compaction refers to", () => {
    const entries: StoredEntry[] = [
      user("m1", "one"),
      { type: "message", messageId: "m2", message: null },
      user("m3", "three"),
      { type: "compaction", summary: "one and two", keptFrom: 2, tokensBefore: 10 },
      user("m4", "four"),
    ];
    const restored = restoreState(entries);
    const texts = restored.history.map((m) => (m.content[0] as { text: string }).text);
    expect(texts).toEqual([expect.stringContaining("one and two"), "three", "four"]);
    expect(restored.messageCount).toBe(4);
    expect(restored.notices).toEqual([expect.stringContaining('entry 2 (message "m2") was damaged (message:')]);
  });

  test("config values nobody advertises are ignored, the rest of the entry counts", () => {
    const restored = restoreState([{ type: "config", mode: "bogus", thinking: "low", model: "faux/echo" }]);
    expect(restored).toMatchObject({ thinking: "low", model: "faux/echo" });
    expect(restored.mode).toBeUndefined();
    expect(restored.notices).toEqual([expect.stringContaining('a stored mode of "bogus" is not one of read-only, ask, write, auto, yolo')]);
  });

  test("a damaged grant is dropped, never widened", () => {
    const restored = restoreState([
      { type: "grant", grant: { effect: "allow", class: "execute", scope: { kind: "everything" }, label: "x" } },
      { type: "grant", grant: { effect: "allow", class: "read", scope: { kind: "roots" }, label: "Always allow reads" } },
    ]);
    expect(restored.grants).toEqual([{ effect: "allow", class: "read", scope: { kind: "roots" }, label: "Always allow reads" }]);
  });

  test("entries nested too deep are damaged whatever their type; unknown types are kept for forks", () => {
    const tooDeep: StoredEntry = { type: "title", title: "t", at: deep(MAX_ENTRY_DEPTH + 1) as string };
    const newer: StoredEntry = { type: "something_newer", payload: [1] };
    const deepNewer: StoredEntry = { type: "something_newer", payload: deep(MAX_ENTRY_DEPTH + 1) };
    expect(checkEntry(tooDeep, 1).damaged).toBe(true);
    expect(checkEntry(newer, 2)).toEqual({ damaged: false, damagedMessage: false, notices: [] });
    expect(undamagedEntries([tooDeep, newer, deepNewer])).toEqual([newer]);
    expect(() => JSON.stringify(replayUpdates([tooDeep, newer]))).not.toThrow();
  });

  test("a title of null clears the title", () => {
    expect(restoreState([{ type: "title", title: "a" }, { type: "title", title: null }]).title).toBeUndefined();
    const updates = replayUpdates([{ type: "title", title: "a" }, { type: "title", title: null }]);
    expect(updates.some((u) => u.sessionUpdate === "session_info_update")).toBe(false);
  });

  test("usage a client would reject (negative or fractional counts) is skipped, the last good one replayed", () => {
    const good = { type: "usage", used: 10, size: 100, input: 1, output: 2, cacheRead: 0, cacheWrite: 0 };
    const updates = replayUpdates([good, { ...good, used: -1 }, { ...good, size: 1.5 }]);
    expect(updates).toEqual([{ sessionUpdate: "usage_update", used: 10, size: 100 }]);
  });
});

