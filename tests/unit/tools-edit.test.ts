import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { firstText, makeToolSandbox, type ToolSandbox } from "../helpers/tool-sandbox.ts";
import { rejection } from "../helpers/expect-error.ts";
import { applyEdits, editTool, prepareEditArguments } from "../../src/tools/files/edit.ts";
import { lockedPathCount, withFileLock } from "../../src/tools/files/file-lock.ts";
import { ToolError, type ToolContext, type ToolResult, type Workspace } from "../../src/tools/types.ts";

let sandbox: ToolSandbox;
let root: string;
let outside: string;
let workspace: Workspace;

beforeAll(async () => {
  sandbox = await makeToolSandbox("acp-edit-", "token = 1\n");
  ({ root, outside, workspace } = sandbox);
});

afterAll(() => sandbox.cleanup());

const file = (name: string) => join(root, name);
const put = (name: string, content: string | Uint8Array) => writeFileSync(file(name), content);
const bytesOf = (name: string) => readFileSync(file(name));
const textOf = firstText;
const context = (extra: Partial<ToolContext> = {}): ToolContext => sandbox.context(extra);
const parse = (raw: unknown) => v.parse(editTool.schema, raw);
const edit = (raw: unknown, extra: Partial<ToolContext> = {}) => editTool.execute(parse(raw), context(extra));

const failure = async (promise: Promise<unknown>): Promise<string> => (await rejection(promise, ToolError)).message;

describe("edit: applying", () => {
  test("a single edit: result, details, diff and location", async () => {
    put("one.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const result = await edit({ path: "one.ts", edits: [{ oldText: "const b = 2;", newText: "const b = 20;" }] });
    expect(readFileSync(file("one.ts"), "utf8")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
    expect(textOf(result)).toBe("Successfully replaced 1 block(s) in one.ts.");
    expect(result.details).toEqual({ path: file("one.ts"), edits: 1, firstChangedLine: 2 });
    expect(result.diff).toEqual({
      path: file("one.ts"),
      oldText: "const a = 1;\nconst b = 2;\nconst c = 3;\n",
      newText: "const a = 1;\nconst b = 20;\nconst c = 3;\n",
    });
    expect(result.locations).toEqual([{ path: file("one.ts"), line: 2 }]);
  });

  test("several edits are all matched against the original", async () => {
    put("multi.txt", "alpha\nbeta\ngamma\ndelta\n");
    // Applied one after another, edits[1] would find two "beta"s; against the original it is unique.
    const result = await edit({
      path: "multi.txt",
      edits: [
        { oldText: "delta", newText: "DELTA" },
        { oldText: "alpha", newText: "beta" },
        { oldText: "beta", newText: "epsilon" },
      ],
    });
    expect(readFileSync(file("multi.txt"), "utf8")).toBe("beta\nepsilon\ngamma\nDELTA\n");
    expect(textOf(result)).toBe("Successfully replaced 3 block(s) in multi.txt.");
    expect(result.details).toEqual({ path: file("multi.txt"), edits: 3, firstChangedLine: 1 });
  });

  test("firstChangedLine skips a common prefix inside the replaced block", async () => {
    put("lines.txt", "1\n2\n3\n4\n5\n");
    const result = await edit({ path: "lines.txt", edits: [{ oldText: "3\n4\n5", newText: "3\n4\nfive" }] });
    expect(result.details).toMatchObject({ firstChangedLine: 5 });
    expect(result.locations).toEqual([{ path: file("lines.txt"), line: 5 }]);
  });

  test("keeps the file's mode", async () => {
    put("run.sh", "echo a\n");
    chmodSync(file("run.sh"), 0o755);
    await edit({ path: "run.sh", edits: [{ oldText: "echo a", newText: "echo b" }] });
    expect(statSync(file("run.sh")).mode & 0o777).toBe(0o755);
  });
});

describe("edit: errors", () => {
  beforeEach(() => put("err.txt", "foo\nbar\nfoo\nbaz\n"));

  test("text not found (one edit, several edits)", async () => {
    expect(await failure(edit({ path: "err.txt", edits: [{ oldText: "qux", newText: "x" }] }))).toBe(
      "Could not find the exact text in err.txt. The old text must match exactly including all whitespace and newlines.",
    );
    expect(
      await failure(edit({ path: "err.txt", edits: [{ oldText: "bar", newText: "x" }, { oldText: "qux", newText: "y" }] })),
    ).toBe("Could not find edits[1] in err.txt. The oldText must match exactly including all whitespace and newlines.");
  });

  test("several occurrences (one edit, several edits)", async () => {
    expect(await failure(edit({ path: "err.txt", edits: [{ oldText: "foo", newText: "x" }] }))).toBe(
      "Found 2 occurrences of the text in err.txt. The text must be unique. Please provide more context to make it unique.",
    );
    expect(
      await failure(edit({ path: "err.txt", edits: [{ oldText: "baz", newText: "x" }, { oldText: "foo", newText: "y" }] })),
    ).toBe("Found 2 occurrences of edits[1] in err.txt. Each oldText must be unique. Please provide more context to make it unique.");
  });

  test("overlapping edits", async () => {
    expect(
      await failure(edit({ path: "err.txt", edits: [{ oldText: "bar\nfoo", newText: "x" }, { oldText: "foo\nbaz", newText: "y" }] })),
    ).toBe("edits[0] and edits[1] overlap in err.txt. Merge them into one edit or target disjoint regions.");
    expect(
      await failure(edit({ path: "err.txt", edits: [{ oldText: "foo\nbaz", newText: "z" }, { oldText: "r\nfoo", newText: "y" }] })),
    ).toBe("edits[0] and edits[1] overlap in err.txt. Merge them into one edit or target disjoint regions.");
  });

  test("a replacement that changes nothing", async () => {
    expect(await failure(edit({ path: "err.txt", edits: [{ oldText: "bar", newText: "bar" }] }))).toBe(
      "No changes made to err.txt. The replacement produced identical content.",
    );
    expect(
      await failure(edit({ path: "err.txt", edits: [{ oldText: "bar", newText: "bar" }, { oldText: "baz", newText: "baz" }] })),
    ).toBe("No changes made to err.txt. The replacements produced identical content.");
  });

  test("empty oldText", async () => {
    expect(await failure(edit({ path: "err.txt", edits: [{ oldText: "", newText: "x" }] }))).toBe("oldText must not be empty in err.txt.");
    expect(
      await failure(edit({ path: "err.txt", edits: [{ oldText: "bar", newText: "x" }, { oldText: "", newText: "y" }] })),
    ).toBe("edits[1].oldText must not be empty in err.txt.");
  });

  test("nothing is written when any edit fails", async () => {
    await failure(edit({ path: "err.txt", edits: [{ oldText: "bar", newText: "BAR" }, { oldText: "qux", newText: "y" }] }));
    expect(readFileSync(file("err.txt"), "utf8")).toBe("foo\nbar\nfoo\nbaz\n");
  });

  test("missing file, directory, FIFO-like and binary files", async () => {
    expect(await failure(edit({ path: "nope.txt", edits: [{ oldText: "a", newText: "b" }] }))).toBe("File not found: nope.txt");
    expect(await failure(edit({ path: "dir", edits: [{ oldText: "a", newText: "b" }] }))).toBe("dir is a directory; cannot edit it.");
    expect(await failure(edit({ path: "/dev/null", edits: [{ oldText: "a", newText: "b" }] }, { outsideRootsApproved: true }))).toBe(
      "/dev/null is not a regular file; refusing to edit it.",
    );
    put("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a])); // "caf\xE9\nx\n"
    expect(await failure(edit({ path: "latin1.txt", edits: [{ oldText: "x", newText: "y" }] }))).toBe(
      "latin1.txt is not valid UTF-8 text; editing it would corrupt it.",
    );
    expect(Array.from(bytesOf("latin1.txt"))).toEqual([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]);
  });

  test("paths leaving the roots are refused; approved ones are edited", async () => {
    const refusal = (p: string) =>
      `Path "${p}" is outside the session's directories (${workspace.roots[0]}). Only files under them can be edited.`;
    expect(await failure(edit({ path: "../outside/secret.txt", edits: [{ oldText: "1", newText: "2" }] }))).toBe(
      refusal("../outside/secret.txt"),
    );
    expect(await failure(edit({ path: "dir-out/secret.txt", edits: [{ oldText: "1", newText: "2" }] }))).toBe(
      refusal("dir-out/secret.txt"),
    );
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("token = 1\n");
    await edit({ path: "../outside/secret.txt", edits: [{ oldText: "1", newText: "2" }] }, { outsideRootsApproved: true });
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("token = 2\n");
    writeFileSync(join(outside, "secret.txt"), "token = 1\n");
  });
});

describe("edit: file format", () => {
  test("BOM and CRLF are kept byte for byte", async () => {
    put("win.txt", "\uFEFFline1\r\nline2\r\nline3\r\n");
    const result = await edit({ path: "win.txt", edits: [{ oldText: "line2\nline3", newText: "LINE2\nnew\nline3" }] });
    expect(bytesOf("win.txt").equals(Buffer.from("\uFEFFline1\r\nLINE2\r\nnew\r\nline3\r\n", "utf8"))).toBe(true);
    expect(Array.from(bytesOf("win.txt").subarray(0, 3))).toEqual([0xef, 0xbb, 0xbf]);
    expect(result.details).toMatchObject({ firstChangedLine: 2 });
  });

  test("oldText sent with CRLF matches too", async () => {
    put("win2.txt", "a\r\nb\r\nc\r\n");
    await edit({ path: "win2.txt", edits: [{ oldText: "a\r\nb", newText: "A\r\nB" }] });
    expect(readFileSync(file("win2.txt"), "utf8")).toBe("A\r\nB\r\nc\r\n");
  });

  test("mixed line endings: untouched lines keep theirs", async () => {
    put("mixed.txt", "a\r\nb\nc\r\nd\n");
    await edit({ path: "mixed.txt", edits: [{ oldText: "c", newText: "C" }, { oldText: "b", newText: "B" }] });
    expect(readFileSync(file("mixed.txt"), "utf8")).toBe("a\r\nB\nC\r\nd\n");
  });
});

describe("edit: normalised matching leaves the rest of the file byte-identical", () => {
  const original =
    "// header with trailing spaces   \n" +
    "const msg = \u201Chello\u201D;   \n" +
    "const range = \u20181\u20132\u2019; // em\u2014dash\n" +
    "const gap = 'a\u00A0b';\n" +
    "const other = \u201Cuntouched\u201D;  \n";

  test("trailing spaces, smart quotes, dashes and NBSP", async () => {
    put("fuzzy.ts", original);
    const result = await edit({
      path: "fuzzy.ts",
      edits: [
        { oldText: 'const msg = "hello";', newText: 'const msg = "bye";' },
        { oldText: "const range = '1-2'; // em-dash", newText: "const range = '1-3';" },
        { oldText: "const gap = 'a b';", newText: "const gap = 'ab';" },
      ],
    });
    expect(readFileSync(file("fuzzy.ts"), "utf8")).toBe(
      "// header with trailing spaces   \n" +
        'const msg = "bye";   \n' +
        "const range = '1-3';\n" +
        "const gap = 'ab';\n" +
        "const other = \u201Cuntouched\u201D;  \n",
    );
    expect(result.details).toMatchObject({ edits: 3, firstChangedLine: 2 });
  });

  test("a normalised match across lines takes the whitespace inside it, nothing else", async () => {
    put("fuzzy2.ts", "if (x) {  \n  go();\t\n}  \nrest\u00A0here  \n");
    await edit({ path: "fuzzy2.ts", edits: [{ oldText: "if (x) {\n  go();\n}", newText: "if (y) {\n  stop();\n}" }] });
    expect(readFileSync(file("fuzzy2.ts"), "utf8")).toBe("if (y) {\n  stop();\n}  \nrest\u00A0here  \n");
  });

  test("normalised duplicates are reported as occurrences", async () => {
    put("dup.ts", "a = \u201Cx\u201D;\nb = \u201Ex\u201F;\n");
    expect(await failure(edit({ path: "dup.ts", edits: [{ oldText: '= "x";', newText: "= y;" }] }))).toBe(
      "Found 2 occurrences of the text in dup.ts. The text must be unique. Please provide more context to make it unique.",
    );
  });
});

describe("edit: argument forms", () => {
  test("legacy top-level oldText/newText", async () => {
    put("legacy.txt", "old value\n");
    const input = parse({ path: "legacy.txt", oldText: "old", newText: "new" });
    expect(input).toEqual({ path: "legacy.txt", edits: [{ oldText: "old", newText: "new" }] });
    const result = await editTool.execute(input, context());
    expect(textOf(result)).toBe("Successfully replaced 1 block(s) in legacy.txt.");
    expect(readFileSync(file("legacy.txt"), "utf8")).toBe("new value\n");
  });

  test("edits given as a JSON string", async () => {
    put("json.txt", "x\ny\n");
    const input = parse({ path: "json.txt", edits: JSON.stringify([{ oldText: "x", newText: "X" }, { oldText: "y", newText: "Y" }]) });
    expect(input.edits).toEqual([{ oldText: "x", newText: "X" }, { oldText: "y", newText: "Y" }]);
    await editTool.execute(input, context());
    expect(readFileSync(file("json.txt"), "utf8")).toBe("X\nY\n");
  });

  test("legacy fields are appended to edits; invalid forms are rejected", () => {
    expect(prepareEditArguments({ path: "p", edits: [{ oldText: "a", newText: "b" }], oldText: "c", newText: "d" })).toEqual({
      path: "p",
      edits: [{ oldText: "a", newText: "b" }, { oldText: "c", newText: "d" }],
    });
    expect(v.safeParse(editTool.schema, { path: "p", edits: [] }).success).toBe(false);
    expect(v.safeParse(editTool.schema, { path: "p" }).success).toBe(false);
    expect(v.safeParse(editTool.schema, { path: "p", edits: "not json" }).success).toBe(false);
    expect(v.safeParse(editTool.schema, { path: "p", edits: [{ oldText: "a", newText: "b", extra: 1 }] }).success).toBe(false);
  });
});

describe("edit: concurrency", () => {
  test("two edits to one file are serialised and both applied", async () => {
    put("race.txt", "first\nsecond\n");
    // A slow read makes both calls read the old content if they were not serialised.
    const slow: Workspace = {
      ...workspace,
      readTextFile: async (path, signal) => {
        const text = await workspace.readTextFile(path, signal);
        await Bun.sleep(30);
        return text;
      },
    };
    const ctx = { workspace: slow, signal: new AbortController().signal };
    await Promise.all([
      editTool.execute(parse({ path: "race.txt", edits: [{ oldText: "first", newText: "FIRST" }] }), ctx),
      editTool.execute(parse({ path: "race.txt", edits: [{ oldText: "second", newText: "SECOND" }] }), ctx),
    ]);
    expect(readFileSync(file("race.txt"), "utf8")).toBe("FIRST\nSECOND\n");
    expect(lockedPathCount()).toBe(0);
  });

  test("the lock serialises one key, runs other keys in parallel, and survives failures", async () => {
    const order: string[] = [];
    const task = (name: string, ms: number, fail = false) => async () => {
      order.push(`${name}:start`);
      await Bun.sleep(ms);
      order.push(`${name}:end`);
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([
      withFileLock("/k/a", task("a1", 20, true)),
      withFileLock("/k/a", task("a2", 1)),
      withFileLock("/k/b", task("b1", 5)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect(order).toEqual(["a1:start", "b1:start", "b1:end", "a1:end", "a2:start", "a2:end"]);
    expect(lockedPathCount()).toBe(0);
  });
});

describe("edit: preview", () => {
  test("returns the diff and the first changed line without writing", async () => {
    put("pre.txt", "a\nb\nc\n");
    const before = statSync(file("pre.txt")).mtimeMs;
    const preview = await editTool.preview!(parse({ path: "pre.txt", edits: [{ oldText: "c", newText: "C" }] }), context());
    expect(preview).toEqual({
      diff: { path: file("pre.txt"), oldText: "a\nb\nc\n", newText: "a\nb\nC\n" },
      locations: [{ path: file("pre.txt"), line: 3 }],
      basis: { kind: "text", text: "a\nb\nc\n" },
    });
    expect(readFileSync(file("pre.txt"), "utf8")).toBe("a\nb\nc\n");
    expect(statSync(file("pre.txt")).mtimeMs).toBe(before);
  });

  test("throws the same errors as execute", async () => {
    put("pre2.txt", "a\na\n");
    expect(await failure(editTool.preview!(parse({ path: "pre2.txt", edits: [{ oldText: "a", newText: "b" }] }), context()))).toBe(
      "Found 2 occurrences of the text in pre2.txt. The text must be unique. Please provide more context to make it unique.",
    );
  });

  test("does not read outside the roots before approval", async () => {
    const preview = await editTool.preview!(parse({ path: "../outside/secret.txt", edits: [{ oldText: "zzz", newText: "y" }] }), context());
    expect(preview).toEqual({ locations: [{ path: join(outside, "secret.txt") }] });
  });

  test("execute refuses a file that changed after the preview, even when the edit would still apply", async () => {
    put("moving.txt", "line1 foo\n");
    const input = parse({ path: "moving.txt", edits: [{ oldText: "foo", newText: "bar" }] });
    const preview = await editTool.preview!(input, context());
    put("moving.txt", "IMPORTANT USER CHANGE foo\n");
    expect(await failure(editTool.execute(input, context({ preview })))).toBe(
      "moving.txt changed after this edit was previewed for approval, so it was not written (it would not be what was approved). " +
        "Read moving.txt again and redo the edit if it is still needed.",
    );
    expect(readFileSync(file("moving.txt"), "utf8")).toBe("IMPORTANT USER CHANGE foo\n");

    // Unchanged since its preview: applied as shown.
    const again = parse({ path: "moving.txt", edits: [{ oldText: "foo", newText: "bar" }] });
    const fresh = await editTool.preview!(again, context());
    const result = await editTool.execute(again, context({ preview: fresh }));
    expect(result.diff).toEqual(fresh.diff);
    expect(readFileSync(file("moving.txt"), "utf8")).toBe("IMPORTANT USER CHANGE bar\n");
  });

  test("without a preview (nothing was approved on a diff), execute works from the file as it is now", async () => {
    put("direct.txt", "version = 8\nname = x\n");
    const result = await edit({ path: "direct.txt", edits: [{ oldText: "name = x", newText: "name = y" }] });
    expect(result.diff).toEqual({ path: file("direct.txt"), oldText: "version = 8\nname = x\n", newText: "version = 8\nname = y\n" });
  });
});

describe("edit: describe, access and applyEdits", () => {
  test("title, kind, locations and access", () => {
    const input = parse({ path: "src/app.ts", edits: [{ oldText: "a", newText: "b" }] });
    expect(editTool.describe(input, workspace)).toEqual({ title: "Edit src/app.ts", locations: [{ path: join(root, "src", "app.ts") }] });
    expect(editTool.kind).toBe("edit");
    expect(editTool.access!(input, workspace)).toEqual({ class: "edit", paths: [join(root, "src", "app.ts")] });
  });

  test("applyEdits works on text alone", () => {
    expect(applyEdits("\uFEFFa\r\nb\r\n", [{ oldText: "b", newText: "x\ny" }], "f")).toEqual({
      newText: "\uFEFFa\r\nx\r\ny\r\n",
      firstChangedLine: 2,
    });
  });

  test("no temporary files are left behind", () => {
    expect(readdirSync(root).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
