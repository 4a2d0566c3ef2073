import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { displayPath, resolveInRoots, toAbsolute } from "../../src/tools/paths.ts";
import { ToolError, type Workspace } from "../../src/tools/types.ts";

let base: string;
let root: string;
let extra: string;
let outside: string;
let workspace: Workspace;

beforeAll(async () => {
  base = mkdtempSync(join(realpathSync(tmpdir()), "acp-paths-"));
  root = join(base, "proj");
  extra = join(base, "extra");
  outside = join(base, "outside");
  for (const dir of [join(root, "sub"), extra, outside]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, "a.txt"), "a");
  writeFileSync(join(root, "sub", "b.txt"), "b");
  writeFileSync(join(extra, "e.txt"), "e");
  writeFileSync(join(outside, "secret.txt"), "s");
  symlinkSync(join(outside, "secret.txt"), join(root, "link-out"));
  symlinkSync(outside, join(root, "dir-out"));
  symlinkSync(join(root, "sub", "b.txt"), join(root, "link-in"));
  symlinkSync(join(outside, "missing.txt"), join(root, "dangling"));
  workspace = await createLocalWorkspace(root, [extra]);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function refusal(input: string): Promise<string> {
  try {
    await resolveInRoots(input, workspace, "read");
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return (error as Error).message;
  }
  throw new Error(`expected ${input} to be refused`);
}

describe("toAbsolute", () => {
  test("resolves relative paths against cwd and normalises", () => {
    expect(toAbsolute("src/../lib/./x.ts", "/home/u/proj")).toBe("/home/u/proj/lib/x.ts");
    expect(toAbsolute("/etc/hosts", "/home/u/proj")).toBe("/etc/hosts");
    expect(toAbsolute("/etc/", "/home/u/proj")).toBe("/etc");
    expect(toAbsolute("src/", "/home/u/proj")).toBe("/home/u/proj/src");
  });

  test("strips one leading @ and expands ~/", () => {
    expect(toAbsolute("@src/x.ts", "/p")).toBe("/p/src/x.ts");
    expect(toAbsolute("@@x", "/p")).toBe("/p/@x");
    expect(toAbsolute("~/notes.md", "/p")).toBe(join(homedir(), "notes.md"));
    expect(toAbsolute("~", "/p")).toBe(homedir());
  });

  test("normalises unicode spaces", () => {
    expect(toAbsolute("my\u00A0file.txt", "/p")).toBe("/p/my file.txt");
  });
});

describe("displayPath", () => {
  test("relative under cwd, '.' for cwd, absolute elsewhere", () => {
    expect(displayPath("/p/src/x.ts", "/p")).toBe("src/x.ts");
    expect(displayPath("/p", "/p")).toBe(".");
    expect(displayPath("/pq/x", "/p")).toBe("/pq/x");
  });
});

describe("resolveInRoots", () => {
  test("workspace roots are realpath'd, cwd first", () => {
    expect(workspace.roots).toEqual([realpathSync(root), realpathSync(extra)]);
    expect(workspace.cwd).toBe(root);
  });

  test("accepts files inside cwd, relative or absolute, with @", async () => {
    expect(await resolveInRoots("a.txt", workspace)).toBe(join(root, "a.txt"));
    expect(await resolveInRoots(join(root, "sub", "b.txt"), workspace)).toBe(join(root, "sub", "b.txt"));
    expect(await resolveInRoots("@sub/b.txt", workspace)).toBe(join(root, "sub", "b.txt"));
    expect(await resolveInRoots("sub/../a.txt", workspace)).toBe(join(root, "a.txt"));
  });

  test("refuses .. escapes and names the roots", async () => {
    const message = await refusal("../outside/secret.txt");
    expect(message).toBe(
      `Path "../outside/secret.txt" is outside the session's directories (${realpathSync(root)}, ${realpathSync(extra)}). ` +
        "Only files under them can be read.",
    );
  });

  test("refuses absolute paths outside every root", async () => {
    expect(await refusal(join(outside, "secret.txt"))).toContain("is outside the session's directories");
    expect(await refusal("/etc/passwd")).toContain('Path "/etc/passwd" is outside');
  });

  test("refuses a symlinked file pointing outside", async () => {
    expect(await refusal("link-out")).toContain('Path "link-out" is outside');
  });

  test("refuses paths through a symlinked directory pointing outside, existing or not", async () => {
    expect(await refusal("dir-out/secret.txt")).toContain("is outside");
    expect(await refusal("dir-out/new/file.txt")).toContain("is outside");
    expect(await refusal("dir-out")).toContain("is outside");
  });

  test("refuses a dangling symlink", async () => {
    expect(await refusal("dangling")).toContain("broken symbolic link");
  });

  test("allows a symlink whose target stays inside", async () => {
    expect(await resolveInRoots("link-in", workspace)).toBe(join(root, "link-in"));
  });

  test("allows files in an additional directory", async () => {
    expect(await resolveInRoots(join(extra, "e.txt"), workspace)).toBe(join(extra, "e.txt"));
    expect(await resolveInRoots("../extra/e.txt", workspace)).toBe(join(extra, "e.txt"));
  });

  test("resolves a path that does not exist yet inside a root", async () => {
    expect(await resolveInRoots("sub/new/deep.txt", workspace)).toBe(join(root, "sub", "new", "deep.txt"));
    expect(await resolveInRoots("a.txt/below", workspace)).toBe(join(root, "a.txt", "below"));
  });

  test("the default wording says accessed", async () => {
    await expect(resolveInRoots("/etc/passwd", workspace)).rejects.toThrow("Only files under them can be accessed.");
  });
});

describe("createLocalWorkspace", () => {
  test("reads text and capped bytes", async () => {
    expect(await workspace.readTextFile(join(root, "a.txt"))).toBe("a");
    writeFileSync(join(root, "bytes.bin"), new Uint8Array([1, 2, 3, 4, 5]));
    expect([...(await workspace.readFileBytes(join(root, "bytes.bin"), 3))]).toEqual([1, 2, 3]);
    expect([...(await workspace.readFileBytes(join(root, "bytes.bin")))]).toEqual([1, 2, 3, 4, 5]);
  });

  test("rejects a missing additional directory", async () => {
    await expect(createLocalWorkspace(root, [join(base, "nope")])).rejects.toThrow();
  });
});
