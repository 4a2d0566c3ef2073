import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findTool } from "../../src/tools/search/find.ts";
import { GREP_LINE_COST_BUDGET, grepTool } from "../../src/tools/search/grep.ts";
import { compileLinearRegex } from "../../src/tools/search/linear-regex.ts";
import { loadSearchEngines } from "../../src/tools/search/search-engines.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import type { ToolResult, Workspace } from "../../src/tools/types.ts";

let root: string;
let workspace: Workspace;

beforeAll(async () => {
  root = mkdtempSync(join(realpathSync(tmpdir()), "acp-regex-"));
  writeFileSync(join(root, "evil.txt"), `${"a".repeat(34)}!\n`.repeat(50));
  writeFileSync(join(root, "code.ts"), "const total = 42;\nconst Name = 'A';\nfoo(bar)\n");
  writeFileSync(join(root, `${"a".repeat(60)}.txt`), "x\n");
  workspace = await createLocalWorkspace(root, []);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const textOf = (result: ToolResult) => (result.content[0] as { type: "text"; text: string }).text;
const grep = (input: Parameters<typeof grepTool.execute>[0], signal = new AbortController().signal) =>
  grepTool.execute(input, { workspace, signal });

// compileLinearRegex is called directly below, without a search that loads its engine.
beforeAll(() => loadSearchEngines());

describe("grep runs patterns in linear time", () => {
  test("a catastrophic backtracking pattern answers at once", async () => {
    expect(textOf(await grep({ pattern: "^(a+)+$", path: "evil.txt" }))).toBe("No matches found");
    expect(textOf(await grep({ pattern: "^(a|aa)+!$", path: "evil.txt", limit: 1 }))).toContain("evil.txt:1:");
  });

  test("common JavaScript syntax keeps working", async () => {
    expect(textOf(await grep({ pattern: "\\d+;$", path: "code.ts" }))).toBe("code.ts:1: const total = 42;");
    expect(textOf(await grep({ pattern: "(?<word>Name) = '\\u0041'", path: "code.ts" }))).toBe("code.ts:2: const Name = 'A';");
    expect(textOf(await grep({ pattern: "NAME", path: "code.ts", ignoreCase: true }))).toBe("code.ts:2: const Name = 'A';");
    expect(textOf(await grep({ pattern: "foo(bar)", path: "code.ts", literal: true }))).toBe("code.ts:3: foo(bar)");
    expect(textOf(await grep({ pattern: "\\p{Lu}ame", path: "code.ts" }))).toBe("code.ts:2: const Name = 'A';");
  });

  test("features a linear-time engine cannot run are refused, naming them", async () => {
    await expect(grep({ pattern: "(a)\\1" })).rejects.toThrow(/^Invalid regex: backreferences/);
    await expect(grep({ pattern: "(?<n>a)\\k<n>" })).rejects.toThrow(/^Invalid regex: named backreferences/);
    await expect(grep({ pattern: "a(?=b)" })).rejects.toThrow(/^Invalid regex: lookahead/);
    await expect(grep({ pattern: "a(?!b)" })).rejects.toThrow(/^Invalid regex: lookahead/);
    await expect(grep({ pattern: "(?<=a)b" })).rejects.toThrow(/^Invalid regex: lookbehind/);
    await expect(grep({ pattern: "(?<!a)b" })).rejects.toThrow(/^Invalid regex: lookbehind/);
    // Inside a class these are plain characters.
    expect(textOf(await grep({ pattern: "[(?=]bar", path: "code.ts" }))).toBe("code.ts:3: foo(bar)");
  });

  test("a line too long for a costly pattern is skipped with a notice", async () => {
    const pattern = "(\\p{L}[\\p{L} ]{100}){10}\\p{N}";
    const limit = Math.floor(GREP_LINE_COST_BUDGET / compileLinearRegex(pattern).cost);
    writeFileSync(join(root, "long.txt"), `${"b".repeat(limit + 1)}\n${"b".repeat(1200)}9\n`);
    const result = await grep({ pattern, path: "long.txt" });
    expect(textOf(result)).toContain("long.txt:2:");
    expect(textOf(result)).toContain(`1 line(s) longer than ${limit} chars were not searched`);
    expect(result.details).toMatchObject({ matches: 1, skippedLongLines: 1 });
  });

  test("an abort during a search stops it at the next slice", async () => {
    writeFileSync(join(root, "many.txt"), "line of text\n".repeat(400_000));
    const controller = new AbortController();
    const reason = new Error("cancelled");
    const search = grep({ pattern: "(x|y|z)+q", path: "many.txt" }, controller.signal);
    setTimeout(() => controller.abort(reason), 0);
    await expect(search).rejects.toBe(reason);
  });
});

describe("globs run in linear time", () => {
  test("a glob that backtracks exponentially in picomatch's regex answers at once", async () => {
    const result = await findTool.execute({ pattern: "*a*a*a*a*a*a*a*a*a*a*a*a*b" }, { workspace, signal: new AbortController().signal });
    expect(textOf(result)).toContain("No files found");
    const hit = await findTool.execute({ pattern: "*a*a*a*a*a*a*a*a*a*a*a*a*.txt" }, { workspace, signal: new AbortController().signal });
    expect(textOf(hit)).toContain(`${"a".repeat(60)}.txt`);
  });

  test("globs with non-ASCII characters match them (picomatch escapes them; RE2 takes them plain)", async () => {
    writeFileSync(join(root, "été.md"), "");
    const result = await findTool.execute({ pattern: "é*.md" }, { workspace, signal: new AbortController().signal });
    expect(textOf(result)).toBe("été.md");
  });

  test("negated extglobs are refused with the reason; a leading ! still negates", async () => {
    await expect(findTool.execute({ pattern: "!(evil).txt" }, { workspace, signal: new AbortController().signal })).rejects.toThrow(
      /negated extglobs/,
    );
    const result = await findTool.execute({ pattern: "!*.txt" }, { workspace, signal: new AbortController().signal });
    expect(textOf(result).split("\n")).toContain("code.ts");
    expect(textOf(result)).not.toContain(".txt");
  });
});

describe(".gitignore rules run in linear time", () => {
  const HOSTILE = "a/**/a/**/a/**/a/**/a/**/a/**/a/**/a/**/b";

  test("a rule with many ** does not stall a walk through deep directories", async () => {
    const deep = join(root, "deep");
    const dirs = join(deep, ...Array.from({ length: 60 }, () => "a"));
    mkdirSync(dirs, { recursive: true });
    writeFileSync(join(dirs, "c.txt"), "needle\n");
    writeFileSync(join(deep, ".gitignore"), `${HOSTILE}\n`);
    const deepWorkspace = await createLocalWorkspace(deep, []);
    const result = await grepTool.execute({ pattern: "needle" }, { workspace: deepWorkspace, signal: new AbortController().signal });
    expect(textOf(result)).toContain("c.txt:1: needle");
  });

  test("hostile rules (star runs, brackets, escapes) on long names do not stall a walk either", async () => {
    const wide = join(root, "wide");
    const dirs = join(wide, ...Array.from({ length: 40 }, () => "a".repeat(40)));
    mkdirSync(dirs, { recursive: true });
    writeFileSync(join(dirs, `${"a".repeat(200)}.txt`), "needle\n");
    const rules = [
      "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
      "**/*a*a*a*a*a*a*a*a*a*a*a*b/**/*a*a*a*a*a*a*a*a*c",
      "[a-z][a-z][a-z][!b]*[[:alpha:]]*[^c]*[a]*[a]*[a]*[a]*b",
      "a**a**a**a**a**a**a**a**a**/b",
      "\\a\\*\\a\\*\\a\\*\\b",
    ];
    writeFileSync(join(wide, ".gitignore"), `${rules.join("\n")}\n`);
    const wideWorkspace = await createLocalWorkspace(wide, []);
    const result = await grepTool.execute({ pattern: "needle" }, { workspace: wideWorkspace, signal: new AbortController().signal });
    expect(textOf(result)).toContain(`${"a".repeat(200)}.txt:1: needle`);
  });
});

describe("globs picomatch cannot parse are refused", () => {
  test("four backslashes at the end of a glob are refused, not left to hang the parser", async () => {
    await expect(findTool.execute({ pattern: "x\\\\\\\\" }, { workspace, signal: new AbortController().signal })).rejects.toThrow(/backslashes/);
  });
});
