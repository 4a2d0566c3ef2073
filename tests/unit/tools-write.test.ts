import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import * as v from "valibot";
import * as rfs from "../../src/runtime/files/fs.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import { firstText, makeToolSandbox, type ToolSandbox } from "../helpers/tool-sandbox.ts";
import { rejection } from "../helpers/expect-error.ts";
import { ToolError, type ToolContext, type ToolResult, type Workspace } from "../../src/tools/types.ts";
import { writeTool } from "../../src/tools/files/write.ts";

let sandbox: ToolSandbox;
let base: string;
let root: string;
let outside: string;
let workspace: Workspace;

beforeAll(async () => {
  sandbox = await makeToolSandbox("acp-write-");
  ({ base, root, outside, workspace } = sandbox);
  execFileSync("mkfifo", [join(root, "pipe")]);
});

afterAll(() => sandbox.cleanup());

const context = (extra: Partial<ToolContext> = {}): ToolContext => sandbox.context(extra);
const run = (path: string, content: string, extra: Partial<ToolContext> = {}) =>
  writeTool.execute(v.parse(writeTool.schema, { path, content }), context(extra));
const textOf = firstText;

const failure = async (promise: Promise<unknown>): Promise<string> => (await rejection(promise, ToolError)).message;

describe("write", () => {
  test("creates a new file and its parent directories", async () => {
    const result = await run("new/deep/file.txt", "héllo ✓\n");
    const path = join(root, "new", "deep", "file.txt");
    expect(readFileSync(path, "utf8")).toBe("héllo ✓\n");
    // UTF-8 bytes, not characters: é is 2, ✓ is 3.
    expect(textOf(result)).toBe("Successfully wrote 11 bytes to new/deep/file.txt");
    expect(result.details).toEqual({ path, bytes: 11, created: true });
    expect(result.diff).toEqual({ path, oldText: null, newText: "héllo ✓\n" });
    expect(result.locations).toEqual([{ path, line: 1 }]);
    expect(statSync(path).mode & 0o777).toBe(0o644 & ~process.umask());
  });

  test("overwrites, reporting the previous content in the diff", async () => {
    const path = join(root, "over.txt");
    writeFileSync(path, "old\n");
    const result = await run("over.txt", "new\n");
    expect(readFileSync(path, "utf8")).toBe("new\n");
    expect(result.details).toEqual({ path, bytes: 4, created: false });
    expect(result.diff).toEqual({ path, oldText: "old\n", newText: "new\n" });
  });

  test("keeps the mode of the file it replaces", async () => {
    const path = join(root, "script.sh");
    writeFileSync(path, "#!/bin/sh\n");
    chmodSync(path, 0o750);
    await run("script.sh", "#!/bin/sh\necho hi\n");
    expect(statSync(path).mode & 0o7777).toBe(0o750);
    chmodSync(path, 0o600);
    await run("script.sh", "#!/bin/sh\n");
    expect(statSync(path).mode & 0o7777).toBe(0o600);
    // Bits a typical umask (022) would strip from a freshly created file.
    chmodSync(path, 0o666);
    await run("script.sh", "#!/bin/sh\necho\n");
    expect(statSync(path).mode & 0o7777).toBe(0o666);
  });

  test("writes through a symlink to a file inside the roots, keeping the link", async () => {
    writeFileSync(join(root, "target.txt"), "t\n");
    symlinkSync(join(root, "target.txt"), join(root, "alias.txt"));
    await run("alias.txt", "via link\n");
    expect(lstatSync(join(root, "alias.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(root, "alias.txt"))).toBe(join(root, "target.txt"));
    expect(readFileSync(join(root, "target.txt"), "utf8")).toBe("via link\n");
  });

  test("refuses a directory", async () => {
    expect(await failure(run("dir", "x"))).toBe("dir is a directory; cannot write it.");
  });

  test("refuses a FIFO without opening it", async () => {
    expect(await failure(run("pipe", "x"))).toBe("pipe is not a regular file; refusing to write it.");
    expect(lstatSync(join(root, "pipe")).isFIFO()).toBe(true);
  });

  test("refuses a device even when reaching outside the roots is approved", async () => {
    expect(await failure(run("/dev/null", "x", { outsideRootsApproved: true }))).toBe(
      "/dev/null is not a regular file; refusing to write it.",
    );
  });

  test("refuses content over 16 MiB", async () => {
    const big = "x".repeat(16 * 1024 * 1024 + 1);
    expect(await failure(run("big.txt", big))).toBe("Content is 16.1 MiB; the limit for one write is 16 MiB.");
    expect(readdirSync(root)).not.toContain("big.txt");
  });

  test("refuses paths that leave the roots through .. or a symlinked directory", async () => {
    expect(await failure(run("../outside/x.txt", "x"))).toBe(
      `Path "../outside/x.txt" is outside the session's directories (${workspace.roots[0]}). Only files under them can be written.`,
    );
    expect(await failure(run("dir-out/secret.txt", "pwned"))).toBe(
      `Path "dir-out/secret.txt" is outside the session's directories (${workspace.roots[0]}). Only files under them can be written.`,
    );
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  test("writes outside the roots once approved", async () => {
    const result = await run("../outside/ok.txt", "fine\n", { outsideRootsApproved: true });
    expect(readFileSync(join(outside, "ok.txt"), "utf8")).toBe("fine\n");
    expect(textOf(result)).toBe(`Successfully wrote 5 bytes to ${join(outside, "ok.txt")}`);
  });

  test("a cancelled call writes nothing", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    await expect(run("cancelled.txt", "x", { signal: controller.signal })).rejects.toThrow("cancelled");
    expect(readdirSync(root)).not.toContain("cancelled.txt");
  });

  test("leaves no temporary files behind", () => {
    const leftovers = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() && !e.isSymbolicLink() ? leftovers(join(dir, e.name)) : e.name.endsWith(".tmp") ? [e.name] : [],
      );
    expect(leftovers(root)).toEqual([]);
  });
});

describe("write: preview", () => {
  test("returns the diff and writes nothing", async () => {
    const path = join(root, "preview.txt");
    writeFileSync(path, "before\n");
    const preview = await writeTool.preview!({ path: "preview.txt", content: "after\n" }, context());
    expect(preview).toEqual({
      diff: { path, oldText: "before\n", newText: "after\n" },
      locations: [{ path, line: 1 }],
      basis: { kind: "text", text: "before\n" },
    });
    expect(readFileSync(path, "utf8")).toBe("before\n");
    const fresh = await writeTool.preview!({ path: "fresh/file.txt", content: "x" }, context());
    expect(fresh.diff).toEqual({ path: join(root, "fresh", "file.txt"), oldText: null, newText: "x" });
    expect(fresh.basis).toEqual({ kind: "absent" });
    expect(readdirSync(root)).not.toContain("fresh");
  });

  test("does not read outside the roots before approval", async () => {
    const preview = await writeTool.preview!({ path: "../outside/secret.txt", content: "x" }, context());
    expect(preview).toEqual({ locations: [{ path: join(outside, "secret.txt"), line: 1 }] });
  });

  test("throws the same refusals as execute", async () => {
    expect(await failure(writeTool.preview!({ path: "dir", content: "x" }, context()))).toBe("dir is a directory; cannot write it.");
  });
});

describe("write: only what was previewed", () => {
  const approved = async (path: string, content: string) => {
    const input = { path, content };
    return { input, preview: await writeTool.preview!(input, context()) };
  };

  test("a file changed after the preview is left alone and the model is told to read it again", async () => {
    const path = join(root, "race.txt");
    writeFileSync(path, "line1 foo\n");
    const { input, preview } = await approved("race.txt", "line1 bar\n");
    writeFileSync(path, "IMPORTANT USER CHANGE foo\n");
    expect(await failure(writeTool.execute(input, context({ preview })))).toBe(
      "race.txt changed after this write was previewed for approval, so it was not written (it would not be what was approved). " +
        "Read race.txt again and redo the write if it is still needed.",
    );
    expect(readFileSync(path, "utf8")).toBe("IMPORTANT USER CHANGE foo\n");
  });

  test("a file that appeared or disappeared after the preview is left alone", async () => {
    const appeared = join(root, "appeared.txt");
    const first = await approved("appeared.txt", "mine\n");
    writeFileSync(appeared, "theirs\n");
    expect(await failure(writeTool.execute(first.input, context({ preview: first.preview })))).toStartWith("appeared.txt was created after this write");
    expect(readFileSync(appeared, "utf8")).toBe("theirs\n");

    const vanished = join(root, "vanished.txt");
    writeFileSync(vanished, "old\n");
    const second = await approved("vanished.txt", "new\n");
    rmSync(vanished);
    expect(await failure(writeTool.execute(second.input, context({ preview: second.preview })))).toStartWith("vanished.txt was deleted after this write");
    expect(existsSync(vanished)).toBe(false);
  });

  test("an unchanged file is written", async () => {
    const path = join(root, "steady.txt");
    writeFileSync(path, "before\n");
    const { input, preview } = await approved("steady.txt", "after\n");
    await writeTool.execute(input, context({ preview }));
    expect(readFileSync(path, "utf8")).toBe("after\n");
  });
});

describe("write: describe and access", () => {
  test("title, kind, locations and access", () => {
    const input = { path: "src/app.ts", content: "" };
    expect(writeTool.describe(input, workspace)).toEqual({ title: "Write src/app.ts", locations: [{ path: join(root, "src", "app.ts") }] });
    expect(writeTool.kind).toBe("edit");
    expect(writeTool.access!(input, workspace)).toEqual({ class: "edit", paths: [join(root, "src", "app.ts")] });
  });
});

describe("writeFileAtomic", () => {
  let renameSpy: ReturnType<typeof spyOn> | undefined;
  afterEach(() => {
    renameSpy?.mockRestore();
    renameSpy = undefined;
  });

  test("a failing rename leaves the old content and no temporary file", async () => {
    const dir = join(base, "atomic");
    mkdirSync(dir);
    writeFileSync(join(dir, "f.txt"), "old content\n");
    renameSpy = spyOn(fsp, "rename").mockImplementation(async () => {
      throw Object.assign(new Error("EIO: simulated rename failure"), { code: "EIO" });
    });
    await expect(rfs.writeFileAtomic(join(dir, "f.txt"), "new content\n")).rejects.toThrow("EIO: simulated rename failure");
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("old content\n");
    expect(readdirSync(dir)).toEqual(["f.txt"]);
  });

  test("the tool reports a failed write as a ToolError and keeps the file", async () => {
    const path = join(root, "keep.txt");
    writeFileSync(path, "keep\n");
    renameSpy = spyOn(fsp, "rename").mockImplementation(async () => {
      throw Object.assign(new Error("EIO: simulated rename failure"), { code: "EIO" });
    });
    expect(await failure(run("keep.txt", "lost\n"))).toBe("Could not write keep.txt: EIO: simulated rename failure");
    expect(readFileSync(path, "utf8")).toBe("keep\n");
    expect(readdirSync(root).filter((n) => n.includes("keep.txt"))).toEqual(["keep.txt"]);
  });

  /** Runs `meanwhile` once, as the temporary file is opened: another program saving while the new content is written. */
  const whileWriting = (meanwhile: () => void) => {
    const open = fsp.open.bind(fsp);
    let done = false;
    renameSpy = spyOn(fsp, "open").mockImplementation((async (...args: Parameters<typeof fsp.open>) => {
      if (!done && String(args[0]).endsWith(".tmp")) {
        done = true;
        meanwhile();
      }
      return await open(...args);
    }) as typeof fsp.open);
  };

  test("ifUnchanged: a file created while the new content is written is kept (ECHANGED)", async () => {
    const path = join(base, "atomic-created.txt");
    whileWriting(() => writeFileSync(path, "theirs\n"));
    await expect(rfs.writeFileAtomic(path, "mine\n", { ifUnchanged: true })).rejects.toMatchObject({ code: "ECHANGED" });
    expect(readFileSync(path, "utf8")).toBe("theirs\n");
    expect(readdirSync(base).filter((n) => n.includes("atomic-created"))).toEqual(["atomic-created.txt"]);
  });

  test("the tool leaves a file that was saved while it was being written, and says so", async () => {
    const path = join(root, "saved-meanwhile.txt");
    writeFileSync(path, "before\n");
    whileWriting(() => writeFileSync(path, "saved by someone else\n"));
    expect(await failure(run("saved-meanwhile.txt", "mine\n"))).toBe(
      "saved-meanwhile.txt changed while it was being written, so it was left as it is. Read it again and redo the change if it is still needed.",
    );
    expect(readFileSync(path, "utf8")).toBe("saved by someone else\n");
    expect(readdirSync(root).filter((n) => n.includes("saved-meanwhile"))).toEqual(["saved-meanwhile.txt"]);
  });

  test("refuses directories and FIFOs with a code, without blocking", async () => {
    await expect(rfs.writeFileAtomic(join(root, "dir"), "x")).rejects.toMatchObject({ code: "EISDIR" });
    await expect(rfs.writeFileAtomic(join(root, "pipe"), "x")).rejects.toMatchObject({ code: "EINVAL" });
    expect(lstatSync(join(root, "pipe")).isFIFO()).toBe(true);
  });

  test("refuses a broken symlink instead of replacing it", async () => {
    const link = join(base, "dangling");
    symlinkSync(join(base, "nowhere", "x"), link);
    await expect(rfs.writeFileAtomic(link, "x")).rejects.toMatchObject({ code: "ENOENT" });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  test("writes bytes and creates parents", async () => {
    const path = join(base, "bytes", "a", "b.bin");
    await rfs.writeFileAtomic(path, new Uint8Array([0, 1, 2, 255]));
    expect(Array.from(readFileSync(path))).toEqual([0, 1, 2, 255]);
  });
});
