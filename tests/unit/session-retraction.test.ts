/**
 * Messages taken back (`retracted`) through the recorder and the restore:
 * the conversation restored is the one in memory, and a compaction after a
 * retraction keeps the messages it kept, not the retracted ones.
 */
import { describe, expect, test } from "bun:test";
import type { EngineEvent } from "../../src/engine/events.ts";
import { SessionRecorder } from "../../src/sessions/journal/session-recorder.ts";
import { restoreState } from "../../src/sessions/journal/session-restore.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";

const totals = { totals: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, requests: 0 } };
const message = (id: string, text: string): EngineEvent => ({ type: "message", messageId: id, message: { role: "user", content: [{ type: "text", text }] } });
const texts = (history: { content: unknown[] }[]) => history.map((m) => (m.content[0] as { text: string }).text);

describe("retracted messages", () => {
  test("left out on restore; a later compaction's keptFrom skips them; a recorder reopened on the file goes on alike", async () => {
    const store = createMemoryStore();
    const journal = await store.create({ id: "sess_retract", cwd: "/tmp", additionalDirectories: [] });
    const recorder = new SessionRecorder(journal);
    const events: EngineEvent[] = [message("m0", "zero"), message("m1", "one"), message("m2", "refused"), { type: "retracted", messages: 1 }, message("m3", "three")];
    for (const event of events) await recorder.record(event, totals);
    // In memory: zero, one, three. Keeping the last two keeps one and three.
    await recorder.record({ type: "compaction", phase: "completed", compactionId: "c1", reason: "manual", summary: "about zero", keptMessages: 2, tokensBefore: 10 } as EngineEvent, totals);
    await recorder.settle();
    await journal.close();

    const loaded = await store.open("sess_retract");
    const restored = restoreState(loaded.entries);
    expect(texts(restored.history)).toEqual([expect.stringContaining("about zero"), "one", "three"]);
    expect(restored.retracted).toEqual([2]);
    expect(restored.messageCount).toBe(4);

    // Reopened: a retraction and a compaction later still line up with what is in memory (one, three, four).
    const again = new SessionRecorder(loaded.journal, restored.messageCount, restored.retracted);
    for (const event of [message("m4", "four"), message("m5", "refused too"), { type: "retracted", messages: 1 } as EngineEvent]) await again.record(event, totals);
    await again.record({ type: "compaction", phase: "completed", compactionId: "c2", reason: "manual", summary: "about one", keptMessages: 2, tokensBefore: 10 } as EngineEvent, totals);
    await again.settle();
    await loaded.journal.close();
    const final = restoreState((await store.open("sess_retract")).entries);
    expect(texts(final.history)).toEqual([expect.stringContaining("about one"), "three", "four"]);
  });

  test("a retraction larger than what was written takes back only what there is", () => {
    const restored = restoreState([
      { type: "message", messageId: "m0", message: { role: "user", content: [{ type: "text", text: "only" }] } },
      { type: "retracted", messages: 5 },
    ]);
    expect(restored.history).toEqual([]);
    expect(restored.retracted).toEqual([0]);
  });
});
