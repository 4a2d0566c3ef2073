import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { readTool } from "../../src/tools/files/read.ts";
import { truncateHead, truncateLine, truncateTail } from "../../src/tools/truncate.ts";
import { ToolError, type ToolResult, type Workspace } from "../../src/tools/types.ts";

let root: string;
let workspace: Workspace;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]);

beforeAll(async () => {
  root = mkdtempSync(join(realpathSync(tmpdir()), "acp-read-"));
  mkdirSync(join(root, "src"));
  const ten = Array.from({ length: 10 }, (_, i) => `line${i + 1}`).join("\n") + "\n";
  writeFileSync(join(root, "src", "ten.txt"), ten);
  writeFileSync(join(root, "many.txt"), Array.from({ length: 2500 }, (_, i) => `row ${i + 1}`).join("\n"));
  // 1000 lines of exactly 100 bytes: 100 KB, over the byte limit long before the line limit.
  writeFileSync(join(root, "wide.txt"), Array.from({ length: 1000 }, (_, i) => String(i + 1).padEnd(100, "x")).join("\n"));
  writeFileSync(join(root, "huge-line.txt"), `${"y".repeat(60 * 1024)}\nsecond\n`);
  writeFileSync(join(root, "pic.dat"), PNG);
  writeFileSync(join(root, "blob.bin"), new Uint8Array([0x41, 0x42, 0, 0x43, 0x44]));
  writeFileSync(join(root, "empty.txt"), "");
  execFileSync("mkfifo", [join(root, "pipe")]);
  workspace = await createLocalWorkspace(root, []);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const run = (input: { path: string; offset?: number; limit?: number }, signal = new AbortController().signal) =>
  readTool.execute(input, { workspace, signal });
const textOf = (result: ToolResult) => (result.content[0] as { type: "text"; text: string }).text;

describe("read: text", () => {
  test("returns the file raw, without line numbers", async () => {
    const result = await run({ path: "src/ten.txt" });
    expect(textOf(result)).toBe(Array.from({ length: 10 }, (_, i) => `line${i + 1}`).join("\n"));
    expect(result.details).toEqual({
      path: join(root, "src", "ten.txt"),
      totalLines: 10,
      shownFrom: 1,
      shownTo: 10,
      truncated: false,
    });
  });

  test("offset and limit, with the 'more lines' continuation note", async () => {
    const result = await run({ path: "src/ten.txt", offset: 3, limit: 2 });
    expect(textOf(result)).toBe("line3\nline4\n\n[6 more lines in file. Use offset=5 to continue.]");
    expect(result.details).toMatchObject({ shownFrom: 3, shownTo: 4, nextOffset: 5, truncated: false });
  });

  test("a limit reaching the end adds no note", async () => {
    expect(textOf(await run({ path: "src/ten.txt", offset: 9, limit: 50 }))).toBe("line9\nline10");
  });

  test("an offset past the end is an error", async () => {
    await expect(run({ path: "src/ten.txt", offset: 11 })).rejects.toThrow(
      new ToolError("Offset 11 is beyond end of file (10 lines total)"),
    );
  });

  test("truncates at 2000 lines and says how to continue", async () => {
    const result = await run({ path: "many.txt" });
    const text = textOf(result);
    expect(text.startsWith("row 1\nrow 2\n")).toBe(true);
    expect(text.endsWith("row 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")).toBe(true);
    expect(result.details).toMatchObject({ totalLines: 2500, shownTo: 2000, truncated: true, nextOffset: 2001 });

    const rest = textOf(await run({ path: "many.txt", offset: 2001 }));
    expect(rest.split("\n")).toHaveLength(500);
    expect(rest.endsWith("row 2500")).toBe(true);
  });

  test("truncates at 50 KiB on a line boundary, output included", async () => {
    const result = await run({ path: "wide.txt" });
    const text = textOf(result);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(50 * 1024);
    const [body, note] = text.split("\n\n");
    const lines = body!.split("\n");
    expect(lines.every((l) => l.length === 100)).toBe(true);
    expect(note).toBe(`[Showing lines 1-${lines.length} of 1000 (50.0KB limit). Use offset=${lines.length + 1} to continue.]`);
    expect(lines.length).toBeGreaterThan(500);
    expect(result.details).toMatchObject({ truncated: true, nextOffset: lines.length + 1 });
  });

  test("a first line over 50 KiB gets a hint instead of content", async () => {
    const text = textOf(await run({ path: "huge-line.txt" }));
    expect(text).toBe("[Line 1 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '1p' huge-line.txt | head -c 51200]");
    expect(textOf(await run({ path: "huge-line.txt", offset: 2 }))).toBe("second");
  });

  test("an empty file says so", async () => {
    expect(textOf(await run({ path: "empty.txt" }))).toBe("(empty file)");
  });
});

describe("read: other kinds of file", () => {
  test("a PNG (by content, not extension) comes back as an image", async () => {
    const result = await run({ path: "pic.dat" });
    expect(result.content).toEqual([
      { type: "text", text: "Read image file [image/png]" },
      { type: "image", data: Buffer.from(PNG).toString("base64"), mimeType: "image/png" },
    ]);
  });

  test("an image over 5 MiB is described, not sent", async () => {
    const big = join(root, "big.png");
    writeFileSync(big, PNG);
    truncateSync(big, 5 * 1024 * 1024 + 1);
    const result = await run({ path: "big.png" });
    expect(result.content).toHaveLength(1);
    expect(textOf(result)).toBe("Read image file [image/png]\nImage is 5.0MB, over the 5.0MB limit for attachments; not sent.");
  });

  test("a binary file gets a short note", async () => {
    expect(textOf(await run({ path: "blob.bin" }))).toBe("Binary file (5 bytes); not shown.");
  });

  test("a directory is refused with a pointer to ls", async () => {
    await expect(run({ path: "src" })).rejects.toThrow("src is a directory; use ls");
  });

  test("a FIFO is refused without opening it", async () => {
    const started = performance.now();
    await expect(run({ path: "pipe" })).rejects.toThrow("pipe is not a regular file.");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("a file over 64 MiB is refused with a suggestion", async () => {
    const huge = join(root, "huge.log");
    writeFileSync(huge, "");
    truncateSync(huge, 65 * 1024 * 1024);
    await expect(run({ path: "huge.log" })).rejects.toThrow(/65\.0MB, over the 64\.0MB read limit\. Use grep/);
  });

  test("missing files and paths outside the roots are tool errors", async () => {
    await expect(run({ path: "nope.txt" })).rejects.toThrow(new ToolError("File not found: nope.txt"));
    await expect(run({ path: "../../etc/passwd" })).rejects.toThrow("Only files under them can be read.");
  });

  test("an aborted signal stops the read with its reason", async () => {
    const controller = new AbortController();
    const reason = new Error("user cancelled");
    controller.abort(reason);
    await expect(run({ path: "src/ten.txt" }, controller.signal)).rejects.toBe(reason);
  });
});

describe("read: describe", () => {
  test("title and location", () => {
    expect(readTool.describe({ path: "src/app.ts" }, workspace)).toEqual({
      title: "Read src/app.ts",
      locations: [{ path: join(root, "src", "app.ts"), line: 1 }],
    });
    expect(readTool.describe({ path: "@/etc/hosts", offset: 40 }, workspace)).toEqual({
      title: "Read /etc/hosts (from line 40)",
      locations: [{ path: "/etc/hosts", line: 40 }],
    });
    expect(readTool.kind).toBe("read");
  });
});

describe("truncate helpers", () => {
  test("head keeps whole lines within both limits", () => {
    const result = truncateHead("aaa\nbbb\nccc", { maxBytes: 8 });
    expect(result).toMatchObject({ content: "aaa\nbbb", truncated: true, truncatedBy: "bytes", outputLines: 2 });
    expect(truncateHead("a\nb\nc", { maxLines: 2 })).toMatchObject({ content: "a\nb", truncatedBy: "lines" });
    expect(truncateHead("short")).toMatchObject({ content: "short", truncated: false });
  });

  test("head keeps the start of a first line longer than the budget: cut, never dropped", () => {
    const long = truncateHead("a".repeat(40_000), { maxBytes: 32 * 1024 });
    expect(long).toMatchObject({ truncated: true, truncatedBy: "bytes", firstLineExceedsLimit: true, outputLines: 1, outputBytes: 32 * 1024 });
    expect(long.content).toBe("a".repeat(32 * 1024));
    // Multi-byte characters and surrogate pairs are never split: 3 bytes each, then 4.
    expect(truncateHead("é€€€", { maxBytes: 7 }).content).toBe("é€");
    expect(truncateHead("😀😀\nnext", { maxBytes: 6 }).content).toBe("😀");
    expect(truncateHead("😀", { maxBytes: 3 }).content).toBe("");
    // No line at all is kept when the line limit is zero.
    expect(truncateHead("a\nb", { maxLines: 0 }).content).toBe("");
  });

  test("tail keeps the end, even of a single long line", () => {
    expect(truncateTail("a\nb\nc", { maxLines: 2 }).content).toBe("b\nc");
    const partial = truncateTail("x\n" + "é".repeat(10), { maxBytes: 5 });
    expect(partial.content).toBe("éé");
    expect(partial.lastLinePartial).toBe(true);
  });

  test("lines over 500 chars are cut with a marker", () => {
    expect(truncateLine("z".repeat(501))).toEqual({ text: `${"z".repeat(500)}... [truncated]`, wasTruncated: true });
    expect(truncateLine("ok")).toEqual({ text: "ok", wasTruncated: false });
  });
});
