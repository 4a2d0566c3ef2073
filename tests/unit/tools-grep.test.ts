import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { registerSecret } from "../../src/runtime/secrets.ts";
import { grepTool } from "../../src/tools/search/grep.ts";
import { GREP_MAX_LINE_LENGTH } from "../../src/tools/truncate.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { ToolError, type ToolResult, type Workspace } from "../../src/tools/types.ts";

let base: string;
let root: string;
let workspace: Workspace;

function write(relative: string, text: string | Uint8Array) {
  const path = join(root, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  base = mkdtempSync(join(realpathSync(tmpdir()), "acp-grep-"));
  root = join(base, "proj");
  write(".gitignore", "ignored.txt\nbuild/\n");
  write("a.ts", "const foo = 1;\nconst bar = 2;\n// FOO here\nfoo();\nlast line\n");
  write("notes.md", "no match\nfoo in markdown\r\n");
  write("ignored.txt", "foo ignored\n");
  write("build/out.js", "foo built\n");
  write(".hidden.ts", "foo hidden\n");
  write("bin.dat", new Uint8Array([0x66, 0x6f, 0x6f, 0x00, 0x0a]));
  write("sub/.gitignore", "skip.ts\n");
  write("sub/skip.ts", "foo skipped\n");
  write("sub/deep.ts", "x\nfoo deep\n");
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside", "leak.ts"), "foo leaked\n");
  symlinkSync(join(base, "outside"), join(root, "ext"));
  symlinkSync(join(base, "outside", "leak.ts"), join(root, "leak-link.ts"));
  workspace = await createLocalWorkspace(root, []);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

type GrepArgs = Parameters<typeof grepTool.execute>[0];
const run = (input: GrepArgs, signal = new AbortController().signal) => grepTool.execute(input, { workspace, signal });
const textOf = (result: ToolResult) => (result.content[0] as { type: "text"; text: string }).text;
const grep = async (input: GrepArgs) => textOf(await run(input));

describe("grep", () => {
  test("a key that a long line's cut would split is hidden before the cut", async () => {
    const key = "sk-grep-cut-0123456789abcdef";
    registerSecret(key);
    write("long/key.env", `KEY=${"k".repeat(GREP_MAX_LINE_LENGTH - 14)}${key}${"t".repeat(50)}\n`);
    const text = await grep({ pattern: "KEY=", path: "long" });
    expect(text).toContain("key.env:1: KEY=");
    expect(text).not.toContain(key.slice(0, 8));
  });

  test("matches across the tree, honouring .gitignore (nested too), skipping binaries and links out", async () => {
    const result = await run({ pattern: "foo" });
    expect(textOf(result)).toBe(
      [".hidden.ts:1: foo hidden", "a.ts:1: const foo = 1;", "a.ts:4: foo();", "notes.md:2: foo in markdown",
        "sub/deep.ts:2: foo deep"].join("\n"),
    );
    expect(result.details).toEqual({ path: root, matches: 5, files: 4 });
  });

  test("ignoreCase", async () => {
    expect(await grep({ pattern: "foo", path: "a.ts", ignoreCase: true })).toBe(
      "a.ts:1: const foo = 1;\na.ts:3: // FOO here\na.ts:4: foo();",
    );
  });

  test("literal treats regex characters as text", async () => {
    expect(await grep({ pattern: "foo()", literal: true })).toBe("a.ts:4: foo();");
    expect(await grep({ pattern: "fo+\\(\\)" })).toBe("a.ts:4: foo();");
  });

  test("context lines use the path-N- form and are not repeated", async () => {
    expect(await grep({ pattern: "foo", path: "a.ts", context: 1 })).toBe(
      ["a.ts:1: const foo = 1;", "a.ts-2- const bar = 2;", "a.ts-3- // FOO here", "a.ts:4: foo();", "a.ts-5- last line"]
        .join("\n"),
    );
  });

  test("glob filters files by name (no /) or relative path (with /)", async () => {
    expect(await grep({ pattern: "foo", glob: "*.md" })).toBe("notes.md:2: foo in markdown");
    expect(await grep({ pattern: "foo", glob: "sub/**" })).toBe("sub/deep.ts:2: foo deep");
  });

  test("path may be a directory (paths relative to it) or a file (its name)", async () => {
    expect(await grep({ pattern: "foo", path: "sub" })).toBe("deep.ts:2: foo deep");
    expect(await grep({ pattern: "hidden", path: ".hidden.ts" })).toBe(".hidden.ts:1: foo hidden");
  });

  test("match limit notice, and it stops early", async () => {
    const result = await run({ pattern: "foo", limit: 2 });
    expect(textOf(result)).toBe(
      ".hidden.ts:1: foo hidden\na.ts:1: const foo = 1;\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]",
    );
    expect(result.details).toMatchObject({ matches: 2, matchLimitReached: 2 });
  });

  test("long lines are cut to 500 chars with a notice", async () => {
    write("long/line.txt", `${"x".repeat(600)}needle`);
    expect(await grep({ pattern: "x+needle", path: "long" })).toBe(
      `line.txt:1: ${"x".repeat(500)}... [truncated]\n\n[Some lines truncated to 500 chars. Use read to see full lines]`,
    );
  });

  test("output stays within 50 KiB", async () => {
    write("big/many.txt", Array.from({ length: 2000 }, (_, i) => `${i} ${"m".repeat(100)}`).join("\n"));
    const result = await run({ pattern: "m{100}", path: "big", limit: 5000 });
    const text = textOf(result);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(50 * 1024);
    expect(text.endsWith("\n\n[50.0KB limit reached]")).toBe(true);
    expect(result.details).toMatchObject({ truncated: true });
  });

  test("no matches, invalid regex, missing path, outside path", async () => {
    expect(await grep({ pattern: "zzz-nothing" })).toBe("No matches found");
    await expect(run({ pattern: "(" })).rejects.toBeInstanceOf(ToolError);
    await expect(run({ pattern: "(unclosed" })).rejects.toThrow(/^Invalid regex: .*/);
    await expect(run({ pattern: "foo", path: "nope" })).rejects.toThrow(new ToolError("Path not found: nope"));
    await expect(run({ pattern: "foo", path: "ext" })).rejects.toThrow("is outside the session's directories");
  });

  test("an aborted signal stops the search with its reason", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(run({ pattern: "foo" }, controller.signal)).rejects.toBe(reason);
  });

  test("describe", () => {
    expect(grepTool.describe({ pattern: "TODO" }, workspace)).toEqual({
      title: 'Grep "TODO"',
      locations: [{ path: root }],
    });
    expect(grepTool.describe({ pattern: "x", path: "sub/" }, workspace).title).toBe('Grep "x" in sub/');
    expect(grepTool.describe({ pattern: "x", path: "a.ts" }, workspace).title).toBe('Grep "x" in a.ts');
    expect(grepTool.kind).toBe("search");
  });
});
