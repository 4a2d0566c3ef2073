/**
 * The login's line editor over raw terminal bytes: Enter in its three
 * spellings, backspace over multi-byte characters, Ctrl-U, escape sequences
 * dropped, pastes spanning questions, the ways to cancel, and a secret mode
 * that shows nothing. A seeded fuzzer checks that no byte sequence makes it
 * throw, return control characters, or show a secret.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { TerminalPrompt } from "../../src/cli/terminal-prompt.ts";
import type { RawTerminalInput } from "../../src/runtime/host/terminal-input.ts";

/** Input that delivers `chunks` in order, then ends. */
function input(...chunks: Array<string | number[]>): RawTerminalInput {
  const queue = chunks.map((chunk) => (typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk)));
  return { next: async () => queue.shift(), close: () => undefined };
}

let shown = "";
const realWrite = process.stderr.write.bind(process.stderr);
beforeEach(() => {
  shown = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    shown += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    return true;
  }) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = realWrite;
});

describe("TerminalPrompt", () => {
  test("Enter as CR, LF or CR LF (even split across reads) ends one answer each", async () => {
    const prompt = new TerminalPrompt(input("one\r", "two\n", "three\r", "\nfour\r\n"));
    expect(await prompt.ask("? ")).toBe("one");
    expect(await prompt.ask("? ")).toBe("two");
    expect(await prompt.ask("? ")).toBe("three");
    expect(await prompt.ask("? ")).toBe("four");
    expect(await prompt.ask("? ")).toBeUndefined(); // end of input
  });

  test("backspace removes whole characters, Ctrl-U the line; escape sequences and other controls are dropped", async () => {
    const prompt = new TerminalPrompt(input("abcé", [0x7f, 0x7f], "x", [0x08], "d\u001b[A\u001b[200~e\u001b[201~\u001bOP\t\r", "junk", [0x15], "kept\r"));
    expect(await prompt.ask("? ")).toBe("abde");
    expect(await prompt.ask("? ")).toBe("kept");
  });

  test("a multi-byte character split across reads is shown once whole", async () => {
    const prompt = new TerminalPrompt(input([0xe2, 0x82], [0xac, 0x0d]));
    expect(await prompt.ask("> ")).toBe("€");
    expect(shown).toBe("> €\n");
  });

  test("Ctrl-C cancels, Ctrl-D cancels only an empty line", async () => {
    expect(await new TerminalPrompt(input("half", [0x03], "more\r")).ask("? ")).toBeUndefined();
    expect(await new TerminalPrompt(input([0x04])).ask("? ")).toBeUndefined();
    expect(await new TerminalPrompt(input("ab", [0x04], "c\r")).ask("? ")).toBe("abc");
  });

  test("a secret answer is never shown, not even its length", async () => {
    const prompt = new TerminalPrompt(input("sk-secret-value", [0x7f], "Z\r"));
    expect(await prompt.ask("Key: ", { secret: true })).toBe("sk-secret-valuZ");
    expect(shown).toBe("Key: \n");
  });

  test("confirm: empty and yes-like answers are yes, n… is no, cancel is no", async () => {
    expect(await new TerminalPrompt(input("\r")).confirm("Again?")).toBe(true);
    expect(await new TerminalPrompt(input("No\r")).confirm("Again?")).toBe(false);
    expect(await new TerminalPrompt(input([0x03])).confirm("Again?")).toBe(false);
  });

  test("seeded fuzz: any bytes give a control-free answer or a cancel, and a secret is never shown", async () => {
    let seed = 0x5eed;
    const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) / 0x1000000;
    const interesting = [0x03, 0x04, 0x08, 0x0a, 0x0d, 0x15, 0x1b, 0x5b, 0x4f, 0x7e, 0x7f, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0xff, 0x00];
    for (let round = 0; round < 500; round++) {
      const chunks: number[][] = [];
      for (let c = 0, n = 1 + Math.floor(random() * 4); c < n; c++) {
        chunks.push(Array.from({ length: Math.floor(random() * 12) }, () => (random() < 0.4 ? interesting[Math.floor(random() * interesting.length)]! : 0x20 + Math.floor(random() * 0x5f))));
      }
      shown = "";
      const answer = await new TerminalPrompt(input(...chunks)).ask("", { secret: true });
      if (answer !== undefined) expect(answer).not.toMatch(/[\x00-\x1f\x7f]/);
      expect(shown).toBe("\n");
    }
  });
});
