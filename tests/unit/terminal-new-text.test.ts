/**
 * What of an editor terminal's output is new: after the editor dropped the
 * start of a repeating output, later output is still reported (with a note
 * that some may repeat), never silently lost.
 */
import { describe, expect, test } from "bun:test";
import { MAY_REPEAT_NOTE, newTerminalText, OVERLAP_CHARS, type SeenOutput } from "../../src/acp/client/terminal-new-text.ts";

const none: SeenOutput = { text: "" };

describe("newTerminalText", () => {
  test("untruncated output: what follows the length seen", () => {
    const first = newTerminalText(none, "one\n", false);
    expect(first.fresh).toBe("one\n");
    expect(newTerminalText(first.seen, "one\ntwo\n", false).fresh).toBe("two\n");
    expect(newTerminalText(first.seen, "one\n", false).fresh).toBe("");
  });

  test("truncated output: what follows the tail seen", () => {
    const seen = newTerminalText(none, "p".repeat(300) + "unique tail", false).seen;
    expect(newTerminalText(seen, "p".repeat(250) + "unique tail then more", true).fresh).toBe(" then more");
  });

  test("repeating output after truncation: new lines are reported with a may-repeat note, read after read", () => {
    // `yes`-like output: the tail seen occurs many times in what the editor keeps.
    const line = "y\n";
    let output = line.repeat(OVERLAP_CHARS);
    let seen = newTerminalText(none, output, false).seen;
    for (let round = 0; round < 3; round++) {
      output = output.slice(100) + line.repeat(50) + `new ${round}\n` + line.repeat(200);
      const next = newTerminalText(seen, output, true);
      expect(next.fresh.startsWith(MAY_REPEAT_NOTE)).toBe(true);
      expect(next.fresh).toContain(`new ${round}\n`);
      seen = next.seen;
    }
  });

  test("the tail seen is gone: everything the editor kept is new", () => {
    const seen = newTerminalText(none, "old old old", false).seen;
    expect(newTerminalText(seen, "all new", true).fresh).toBe("all new");
  });

  test("nothing new after truncation: nothing reported, no note", () => {
    const seen = newTerminalText(none, "x".repeat(300), false).seen;
    expect(newTerminalText(seen, "x".repeat(300), true).fresh).toBe("");
  });
});
