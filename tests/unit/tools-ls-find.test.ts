import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { walkFiles } from "../../src/tools/search/file-walker.ts";
import { findTool } from "../../src/tools/search/find.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { lsTool } from "../../src/tools/files/ls.ts";
import { builtinTools } from "../../src/tools/builtin.ts";
import { ToolError, type ToolResult, type Workspace } from "../../src/tools/types.ts";

let base: string;
let root: string;
let workspace: Workspace;

function write(relative: string, text = "") {
  const path = join(root, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  base = mkdtempSync(join(realpathSync(tmpdir()), "acp-lsfind-"));
  root = join(base, "proj");
  write(".git/HEAD", "ref: refs/heads/main\n");
  write(".git/info/exclude", "excluded.txt\n");
  write(".gitignore", "dist/\n*.log\n");
  write(".hidden", "h");
  write("a.txt");
  write("B.txt");
  write("c.TXT");
  write("excluded.txt");
  write("debug.log");
  write("dist/out.js");
  write("node_modules/pkg/index.js");
  write("src/index.ts");
  write("src/util/x.ts");
  write("src/.gitignore", "generated.ts\n!keep.log\n");
  write("src/generated.ts");
  write("src/keep.log");
  write("src/other.log");
  write("lib/shared.ts");
  write("empty/.keep");
  mkdirSync(join(root, "void"));
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside", "secret.ts"), "");
  symlinkSync(join(base, "outside"), join(root, "ext"));
  symlinkSync(join(root, "lib"), join(root, "src", "linked"));
  symlinkSync(root, join(root, "src", "loop"));
  workspace = await createLocalWorkspace(root, []);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const ctx = (signal = new AbortController().signal) => ({ workspace, signal });
const textOf = (result: ToolResult) => (result.content[0] as { type: "text"; text: string }).text;

describe("ls", () => {
  test("sorted case-insensitively, directories with /, dotfiles and ignored entries included", async () => {
    const result = await lsTool.execute({}, ctx());
    expect(textOf(result)).toBe(
      [".git/", ".gitignore", ".hidden", "a.txt", "B.txt", "c.TXT", "debug.log", "dist/", "empty/", "excluded.txt",
        "ext/", "lib/", "node_modules/", "src/", "void/"].join("\n"),
    );
    expect(result.details).toEqual({ path: root, entries: 15 });
  });

  test("a subdirectory, and the entry limit notice", async () => {
    expect(textOf(await lsTool.execute({ path: "src/util" }, ctx()))).toBe("x.ts");
    const limited = await lsTool.execute({ limit: 2 }, ctx());
    expect(textOf(limited)).toBe(".git/\n.gitignore\n\n[2 entries limit reached. Use limit=4 for more]");
    expect(limited.details).toMatchObject({ entries: 2, entryLimitReached: 2 });
  });

  test("empty, missing, not a directory, outside", async () => {
    expect(textOf(await lsTool.execute({ path: "void" }, ctx()))).toBe("(empty directory)");
    await expect(lsTool.execute({ path: "nope" }, ctx())).rejects.toThrow(new ToolError("Path not found: nope"));
    await expect(lsTool.execute({ path: "a.txt" }, ctx())).rejects.toThrow(new ToolError("Not a directory: a.txt"));
    await expect(lsTool.execute({ path: "ext" }, ctx())).rejects.toBeInstanceOf(ToolError);
    await expect(lsTool.execute({ path: ".." }, ctx())).rejects.toThrow("is outside the session's directories");
  });

  test("describe", () => {
    expect(lsTool.describe({}, workspace)).toEqual({ title: "List .", locations: [{ path: root }] });
    expect(lsTool.describe({ path: "src" }, workspace).title).toBe("List src/");
    expect(lsTool.kind).toBe("read");
  });
});

describe("find", () => {
  const find = async (input: { pattern: string; path?: string; limit?: number }) =>
    textOf(await findTool.execute(input, ctx()));

  test("a pattern without / matches names at any depth, honouring nested .gitignore", async () => {
    // generated.ts is ignored by src/.gitignore; ext/ leaves the roots; src/linked and src/loop point back into
    // the walk, so following them would only repeat entries.
    expect(await find({ pattern: "*.ts" })).toBe("lib/shared.ts\nsrc/index.ts\nsrc/util/x.ts");
  });

  test("hidden files are included; .git, ignored files and excluded files are not", async () => {
    const all = (await find({ pattern: "*" })).split("\n");
    expect(all).toContain(".hidden");
    expect(all).toContain(".gitignore");
    expect(all).toContain("node_modules/pkg/index.js");
    expect(all).toContain("src/keep.log"); // re-included by !keep.log in src/.gitignore
    for (const hidden of [".git/", ".git/HEAD", "dist/", "dist/out.js", "debug.log", "src/other.log", "excluded.txt",
      "src/generated.ts", "ext/", "ext/secret.ts"]) {
      expect(all).not.toContain(hidden);
    }
  });

  test("a pattern with / matches the relative path; directories get a trailing /", async () => {
    expect(await find({ pattern: "src/**/*.ts" })).toBe("src/index.ts\nsrc/util/x.ts");
    expect(await find({ pattern: "util" })).toBe("src/util/");
  });

  test("path narrows the search and results are relative to it; root .gitignore still applies", async () => {
    expect(await find({ pattern: "*.log", path: "src" })).toBe("keep.log");
    expect(await find({ pattern: "*.ts", path: "src/util" })).toBe("x.ts");
    // From src, lib/ is outside the walk, so the link to it inside the roots is followed; loop (-> root) is not.
    expect(await find({ pattern: "*.ts", path: "src" })).toBe("index.ts\nlinked/shared.ts\nutil/x.ts");
  });

  test("node_modules is skipped once a .gitignore says so", async () => {
    write("node-proj/.gitignore", "node_modules/\n");
    write("node-proj/node_modules/dep/index.js");
    write("node-proj/main.js");
    expect(await find({ pattern: "*.js", path: "node-proj" })).toBe("main.js");
  });

  test("a path inside an ignored folder is searched when asked for, as rg does; rules from above still apply below it", async () => {
    write("dist/nested/a.js");
    write("dist/nested/b.log");
    expect((await find({ pattern: "*", path: "dist" })).split("\n").sort()).toEqual(["nested/", "nested/a.js", "out.js"]);
  });

  test("limit notice and no-match message", async () => {
    const result = await findTool.execute({ pattern: "*.ts", limit: 1 }, ctx());
    expect(textOf(result)).toBe("lib/shared.ts\n\n[1 results limit reached. Use limit=2 for more, or refine pattern]");
    expect(result.details).toMatchObject({ results: 1, resultLimitReached: 1 });
    expect(await find({ pattern: "*.rs" })).toBe("No files found matching pattern");
  });

  test("output stays within 50 KiB", async () => {
    const many = join(root, "many");
    mkdirSync(many);
    const name = "n".repeat(120);
    for (let i = 0; i < 500; i++) writeFileSync(join(many, `${name}${i}.md`), "");
    const text = textOf(await findTool.execute({ pattern: "*.md", path: "many" }, ctx()));
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(50 * 1024);
    expect(text.endsWith("\n\n[50.0KB limit reached]")).toBe(true);
    rmSync(many, { recursive: true });
  });

  test("describe", () => {
    expect(findTool.describe({ pattern: "**/*.ts" }, workspace)).toEqual({
      title: "Find **/*.ts",
      locations: [{ path: root }],
    });
    expect(findTool.describe({ pattern: "*.ts", path: "src" }, workspace).title).toBe("Find *.ts in src/");
    expect(findTool.kind).toBe("search");
  });

  test("an aborted signal stops the search with its reason", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(findTool.execute({ pattern: "*" }, ctx(controller.signal))).rejects.toBe(reason);
  });
});

describe("ignore rules a walk applies", () => {
  test("past 2000 rules in one walk an ignore file is not applied, and the result names it", async () => {
    const rules = (count: number, name: string) => `${Array.from({ length: count }, (_, n) => `never-${name}-${n}`).join("\n")}\n${name}\n`;
    write("rules/.gitignore", rules(1500, "first.txt"));
    write("rules/first.txt");
    // Its rules would take the walk past the budget: they do not apply, so second.txt is found.
    write("rules/deep/.gitignore", rules(1000, "second.txt"));
    write("rules/deep/second.txt");
    const text = textOf(await findTool.execute({ pattern: "*.txt", path: "rules" }, ctx()));
    expect(text).not.toContain("first.txt");
    expect(text).toContain("deep/second.txt");
    expect(text).toContain(`${join(root, "rules", "deep", ".gitignore")} were not applied: with them one walk would apply more than 2000 ignore rules`);
  });
});

describe("walkFiles", () => {
  test("stops mid-walk when the signal fires", async () => {
    const controller = new AbortController();
    const reason = new Error("halt");
    const seen: string[] = [];
    const walk = async () => {
      for await (const entry of walkFiles(root, { roots: workspace.roots, signal: controller.signal })) {
        seen.push(entry.relativePath);
        controller.abort(reason);
      }
    };
    await expect(walk()).rejects.toBe(reason);
    expect(seen).toHaveLength(1);
  });
});

describe("builtinTools", () => {
  test("offers every tool once, reads first", () => {
    expect(builtinTools.map((t) => t.name)).toEqual(["read", "write", "edit", "bash", "bash_output", "bash_stop", "grep", "find", "ls", "plan", "fetch"]);
  });
});
