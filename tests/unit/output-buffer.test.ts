import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import type { TempFile } from "../../src/runtime/files/temp-file.ts";
import { OutputBuffer } from "../../src/tools/shell/output-buffer.ts";
import { DEFAULT_MAX_BYTES, truncateTail } from "../../src/tools/truncate.ts";

const created: string[] = [];
afterAll(() => {
  for (const path of created) rmSync(path, { force: true });
});

/** A TempFile kept in memory, to compare what was written with what was fed. */
function memoryFile(): { factory: () => Promise<TempFile>; text(): string; opened(): number } {
  const parts: Uint8Array[] = [];
  let opened = 0;
  return {
    factory: async () => {
      opened++;
      return {
        path: "/memory/full.log",
        append: async (bytes) => {
          parts.push(bytes.slice());
        },
        close: async () => {},
      };
    },
    text: () => parts.map((p) => new TextDecoder().decode(p)).join(""),
    opened: () => opened,
  };
}

/** Feeds `text` in chunks whose sizes follow `sizes` (cycled). */
async function feed(buffer: OutputBuffer, text: string, sizes: number[]): Promise<void> {
  let at = 0;
  for (let i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    await buffer.push(text.slice(at, at + size));
    at += size;
  }
}

/** What the result must be: the tail of the whole output, without its final newline. */
function expected(full: string) {
  return truncateTail(full.endsWith("\n") ? full.slice(0, -1) : full);
}

describe("OutputBuffer", () => {
  test("small output: kept whole, no file, final newline dropped", async () => {
    const file = memoryFile();
    const buffer = new OutputBuffer({ createFile: file.factory });
    await feed(buffer, "one\ntwo\nthree\n", [3]);
    const summary = await buffer.finish();
    expect(summary).toEqual({ output: "one\ntwo\nthree", truncated: false, totalLines: 3, totalBytes: 14 });
    expect(file.opened()).toBe(0);
  });

  test("line counting: a final newline ends a line, it does not start one", async () => {
    const count = async (text: string) => {
      const buffer = new OutputBuffer();
      await buffer.push(text);
      return (await buffer.finish()).totalLines;
    };
    expect(await count("")).toBe(0);
    expect(await count("a")).toBe(1);
    expect(await count("a\nb")).toBe(2);
    expect(await count("a\nb\n")).toBe(2);
    expect(await count("\n")).toBe(1);
    expect(await count("\n\n")).toBe(2);
  });

  test("exactly at the limits: not truncated", async () => {
    const file = memoryFile();
    const buffer = new OutputBuffer({ createFile: file.factory, maxLines: 3, maxBytes: 11 });
    await buffer.push("abc\ndef\nghi\n"); // 11 bytes of content plus the final newline, 3 lines
    expect(await buffer.finish()).toMatchObject({ output: "abc\ndef\nghi", truncated: false, totalLines: 3 });
    expect(file.opened()).toBe(0);
  });

  test("35,000 lines: the tail, all of it in the file, and bounded memory", async () => {
    const full = Array.from({ length: 35_000 }, (_, i) => `${i + 1}`).join("\n") + "\n";
    const buffer = new OutputBuffer();
    let maxRetained = 0;
    for (let at = 0; at < full.length; at += 4093) {
      await buffer.push(full.slice(at, at + 4093));
      maxRetained = Math.max(maxRetained, buffer.retainedLength);
    }
    const summary = await buffer.finish();
    expect(summary.truncated).toBe(true);
    expect(summary.totalLines).toBe(35_000);
    expect(summary.totalBytes).toBe(full.length);
    const lines = summary.output.split("\n");
    expect(lines.length).toBe(2000);
    expect(lines[0]).toBe("33001");
    expect(lines.at(-1)).toBe("35000");
    expect(summary.fullOutputPath).toBeDefined();
    const path = summary.fullOutputPath as string;
    created.push(path);
    expect(readFileSync(path, "utf8")).toBe(full);
    expect(maxRetained).toBeLessThanOrEqual(64 * 1024);
  });

  test("several MB of long lines: byte-limited tail, memory stays under 64 KiB", async () => {
    const file = memoryFile();
    const buffer = new OutputBuffer({ createFile: file.factory });
    const line = (i: number) => `${String(i).padStart(6, "0")} ${"x".repeat(100)}\n`;
    let full = "";
    let maxRetained = 0;
    for (let i = 1; i <= 35_000; i++) {
      const text = line(i);
      full += text;
      await buffer.push(text);
      maxRetained = Math.max(maxRetained, buffer.retainedLength);
    }
    expect(full.length).toBeGreaterThan(3_000_000);
    const summary = await buffer.finish();
    const want = expected(full);
    expect(summary.output).toBe(want.content);
    expect(summary.output.length).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
    expect(summary.output.endsWith(`035000 ${"x".repeat(100)}`)).toBe(true);
    expect(summary).toMatchObject({ truncated: true, totalLines: 35_000, totalBytes: full.length, fullOutputPath: "/memory/full.log" });
    expect(file.text()).toBe(full);
    expect(file.opened()).toBe(1);
    expect(maxRetained).toBeLessThanOrEqual(64 * 1024);
  });

  test("matches truncateTail over the whole output, for awkward shapes and chunkings", async () => {
    const shapes: Record<string, string> = {
      "one huge line": "z".repeat(200_000),
      "one huge line, newline-terminated": "z".repeat(200_000) + "\n",
      "huge line then short ones": "q".repeat(120_000) + "\nshort\nlast",
      "short lines then a huge last line": "a\nb\n" + "w".repeat(90_000),
      "multibyte text": Array.from({ length: 9000 }, (_, i) => `é中😀 ${i}`).join("\n"),
      "just over the line limit": Array.from({ length: 2001 }, (_, i) => `${i}`).join("\n"),
      "blank lines": "\n".repeat(5000),
    };
    for (const [name, full] of Object.entries(shapes)) {
      for (const sizes of [[1_000_000], [7, 8191, 3], [51_201]]) {
        const file = memoryFile();
        const buffer = new OutputBuffer({ createFile: file.factory });
        await feed(buffer, full, sizes);
        const summary = await buffer.finish();
        const want = expected(full);
        const label = `${name} / ${sizes.join(",")}`;
        expect({ label, output: summary.output, truncated: summary.truncated }).toEqual({
          label,
          output: want.content,
          truncated: want.truncated,
        });
        expect({ label, file: file.text() }).toEqual({ label, file: want.truncated ? full : "" });
        expect(buffer.retainedLength).toBeLessThanOrEqual(64 * 1024);
      }
    }
  });

  test("a line cut by the window is never shown as if whole", async () => {
    const buffer = new OutputBuffer({ maxBytes: 10, maxLines: 100, createFile: memoryFile().factory });
    await buffer.push("xxxxx");
    await buffer.push("yyyyyyyy\nz\n"); // the window keeps "yyyyyyyy\nz\n": 10 bytes of content, first line partial
    expect(await buffer.finish()).toMatchObject({ output: "z", truncated: true, totalLines: 2 });
    expect(truncateTail("xxxxxyyyyyyyy\nz", { maxBytes: 10 }).content).toBe("z");
  });

  test("a file that cannot be created leaves the tail intact and names no path", async () => {
    const buffer = new OutputBuffer({
      createFile: async () => {
        throw new Error("ENOSPC");
      },
    });
    const full = "y".repeat(60_000) + "\nend";
    await buffer.push(full);
    const summary = await buffer.finish();
    expect(summary.output).toBe("end");
    expect(summary.truncated).toBe(true);
    expect(summary.fullOutputPath).toBeUndefined();
  });

  test("a write that fails midway removes the partial file", async () => {
    const real = new OutputBuffer();
    await real.push("x".repeat(60_000));
    const summary = await real.finish();
    created.push(summary.fullOutputPath as string);
    expect(existsSync(summary.fullOutputPath as string)).toBe(true);

    let writes = 0;
    let path = "";
    const { createTempFile } = await import("../../src/runtime/files/temp-file.ts");
    const failing = new OutputBuffer({
      createFile: async () => {
        const file = await createTempFile("acp-edge-test-");
        path = file.path;
        return {
          path: file.path,
          close: () => file.close(),
          append: async (bytes) => {
            if (++writes > 1) throw new Error("EIO");
            await file.append(bytes);
          },
        };
      },
    });
    await failing.push("x".repeat(60_000));
    await failing.push("more");
    const broken = await failing.finish();
    expect(broken.fullOutputPath).toBeUndefined();
    expect(path).not.toBe("");
    expect(existsSync(path)).toBe(false);
  });
});
