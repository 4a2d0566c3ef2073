/**
 * The reader for files the agent opens on its own, case by case: what a
 * hostile repository can put at a name (links out, /proc, devices, FIFOs,
 * huge and sparse files, loops, dangling links) and the races between
 * resolving a path and opening it. Each refusal comes with a reason and no
 * content; nothing blocks; nothing is read past the budget.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../../src/runtime/files/bounded-read.ts";
import { describeSkip, readConfinedFile, resolveAreas } from "../../src/runtime/files/confined-file.ts";
import { listConfinedFiles, type ConfinedFolder } from "../../src/runtime/files/confined-folder.ts";
import { makeSandbox, type Sandbox } from "../helpers/agent-process.ts";

const OUTSIDE = "OUTSIDE-CONTENT-7f3a";

describe("readConfinedFile", () => {
  let sandbox: Sandbox;
  let areas: string[];
  const at = (name: string) => join(sandbox.project, name);
  const read = (name: string, budget = 1024) => readConfinedFile(at(name), { areas, budget });

  beforeEach(async () => {
    sandbox = makeSandbox();
    sandbox.write("outside/secret.txt", OUTSIDE);
    sandbox.write("project/plain.md", "plain text\n");
    areas = await resolveAreas([sandbox.project]);
  });
  afterEach(() => sandbox.cleanup());

  test("a regular file inside the areas is read, also through a link that stays inside", async () => {
    symlinkSync("plain.md", at("link.md"));
    expect(await read("plain.md")).toEqual({ ok: true, text: "plain text\n", realPath: areas[0] + "/plain.md" });
    expect(await read("link.md")).toMatchObject({ ok: true, text: "plain text\n" });
  });

  test("a missing file is missing; a link to nothing is dangling", async () => {
    symlinkSync("nowhere.md", at("dangling.md"));
    expect(await read("absent.md")).toEqual({ ok: false, reason: "missing" });
    expect(await read("dangling.md")).toEqual({ ok: false, reason: "dangling" });
  });

  test("links that lead out of the areas are refused without reading: a file, /proc/self/environ, a device", async () => {
    symlinkSync(join(sandbox.root, "outside", "secret.txt"), at("out.md"));
    symlinkSync("../outside/secret.txt", at("relative-out.md"));
    symlinkSync("/proc/self/environ", at("environ.md"));
    symlinkSync("/dev/zero", at("zero.md"));
    for (const name of ["out.md", "relative-out.md", "environ.md", "zero.md"]) {
      const result = await read(name);
      expect(result).toEqual({ ok: false, reason: "outside" });
      expect(JSON.stringify(result)).not.toContain(OUTSIDE);
    }
  });

  test("a folder whose link leads outside carries its files out with it", async () => {
    symlinkSync(join(sandbox.root, "outside"), at("folder"));
    expect(await read("folder/secret.txt")).toEqual({ ok: false, reason: "outside" });
  });

  test("a FIFO is refused at once, never opened (no writer needed)", async () => {
    execFileSync("mkfifo", [at("fifo.md")]);
    symlinkSync("fifo.md", at("to-fifo.md"));
    expect(await read("fifo.md")).toEqual({ ok: false, reason: "not-regular", detail: "a FIFO" });
    expect(await read("to-fifo.md")).toEqual({ ok: false, reason: "not-regular", detail: "a FIFO" });
  });

  test("a device inside the areas is refused by kind", async () => {
    expect(await readConfinedFile("/dev/zero", { areas: ["/dev"], budget: 16 })).toEqual({ ok: false, reason: "not-regular", detail: "a character device" });
  });

  test("a folder at a file's name is not a regular file", async () => {
    mkdirSync(at("AGENTS.md"));
    expect(await read("AGENTS.md")).toEqual({ ok: false, reason: "not-regular", detail: "a folder" });
  });

  test("the budget: exactly the budget is read, one byte more is too large, a 1 GB sparse file costs nothing", async () => {
    writeFileSync(at("exact.md"), "x".repeat(100));
    writeFileSync(at("over.md"), "x".repeat(101));
    writeFileSync(at("sparse.md"), "");
    truncateSync(at("sparse.md"), 1024 ** 3);
    expect(await read("exact.md", 100)).toMatchObject({ ok: true, text: "x".repeat(100) });
    expect(await read("over.md", 100)).toEqual({ ok: false, reason: "too-large" });
    const before = process.memoryUsage().rss;
    expect(await read("sparse.md", 64 * 1024)).toEqual({ ok: false, reason: "too-large" });
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
  });

  test("overflow cut: a longer file gives its first budget bytes in whole characters, said to be cut; a 1 GB file no more", async () => {
    writeFileSync(at("long.md"), "é".repeat(60)); // 120 bytes, 2 per character
    writeFileSync(at("sparse.md"), "");
    truncateSync(at("sparse.md"), 1024 ** 3);
    expect(await readConfinedFile(at("long.md"), { areas, budget: 51, overflow: "cut" })).toMatchObject({ ok: true, text: "é".repeat(25), cut: true });
    expect(await readConfinedFile(at("long.md"), { areas, budget: 120, overflow: "cut" })).toEqual({ ok: true, text: "é".repeat(60), realPath: areas[0] + "/long.md" });
    const before = process.memoryUsage().rss;
    const sparse = await readConfinedFile(at("sparse.md"), { areas, budget: 64 * 1024, overflow: "cut" });
    expect(sparse.ok && sparse.text.length === 64 * 1024 && sparse.cut).toBe(true);
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024);
    expect(await readConfinedFile("/proc/self/environ", { areas: ["/proc"], budget: 4, overflow: "cut" })).toMatchObject({ ok: true, cut: true });
  });

  test("a file that reports size 0 but holds more (procfs) is cut off by the bytes read, not the size", async () => {
    expect(statSync("/proc/self/environ").size).toBe(0);
    expect(await readConfinedFile("/proc/self/environ", { areas: ["/proc"], budget: 4 })).toEqual({ ok: false, reason: "too-large" });
  });

  test("a link loop is unreadable, named as such", async () => {
    symlinkSync("loop-b.md", at("loop-a.md"));
    symlinkSync("loop-a.md", at("loop-b.md"));
    expect(await read("loop-a.md")).toEqual({ ok: false, reason: "unreadable", detail: "a symbolic link loop" });
  });

  test("a file the user cannot read is unreadable, with the error code", async () => {
    if (process.getuid?.() === 0) return; // root reads anything
    writeFileSync(at("locked.md"), "x", { mode: 0o000 });
    expect(await read("locked.md")).toEqual({ ok: false, reason: "unreadable", detail: "EACCES" });
  });

  test("areas are resolved: a project reached through a linked folder is still inside", async () => {
    symlinkSync(sandbox.project, join(sandbox.root, "alias"));
    const aliased = await resolveAreas([join(sandbox.root, "alias"), join(sandbox.root, "missing")]);
    expect(aliased).toEqual(areas);
    expect(await readConfinedFile(join(sandbox.root, "alias", "plain.md"), { areas: aliased, budget: 64 })).toMatchObject({ ok: true });
  });

  test("every reason reads as a sentence, with the area and the budget", () => {
    expect(describeSkip({ ok: false, reason: "outside" }, "the project", 1)).toBe("it leads outside the project");
    expect(describeSkip({ ok: false, reason: "too-large" }, "x", 64 * 1024)).toBe("it is larger than 64 KiB");
    expect(describeSkip({ ok: false, reason: "not-regular", detail: "a FIFO" }, "x", 1)).toBe("it is not a regular file (a FIFO)");
    expect(describeSkip({ ok: false, reason: "dangling" }, "x", 1)).toBe("it is a symbolic link to nothing");
  });
});

describe("readRegularFile: a swap between resolving and opening is caught", () => {
  let sandbox: Sandbox;
  beforeEach(() => {
    sandbox = makeSandbox();
    sandbox.write("project/a.md", "file a\n");
    sandbox.write("project/b.md", "file b\n");
    sandbox.write("outside/secret.txt", OUTSIDE);
  });
  afterEach(() => sandbox.cleanup());
  const at = (name: string) => join(sandbox.project, name);
  const identity = (name: string) => {
    const s = statSync(at(name));
    return { dev: s.dev, ino: s.ino };
  };

  test("the file resolved is the file read", async () => {
    expect(await readRegularFile(at("a.md"), 64, identity("a.md"))).toEqual({ ok: true, bytes: new TextEncoder().encode("file a\n") });
  });

  test("another file renamed over it after it was checked", async () => {
    // (A file that already exists has its own inode; one created after the check may reuse the freed inode,
    // but it is then a new file at the same place inside the areas, which is what would be read anyway.)
    const checked = identity("a.md");
    renameSync(at("b.md"), at("a.md"));
    expect(await readRegularFile(at("a.md"), 64, checked)).toEqual({ ok: false, reason: "changed" });
  });

  test("a folder on the way swapped for a link to another folder after the file was checked", async () => {
    sandbox.write("project/sub/a.md", "inside\n");
    sandbox.write("outside/sub/a.md", OUTSIDE);
    const s = statSync(at("sub/a.md"));
    renameSync(at("sub"), at("old-sub"));
    symlinkSync(join(sandbox.root, "outside", "sub"), at("sub"));
    expect(await readRegularFile(at("sub/a.md"), 64, { dev: s.dev, ino: s.ino })).toEqual({ ok: false, reason: "changed" });
  });

  test("a link put in its place after it was checked is not followed", async () => {
    const checked = identity("a.md");
    rmSync(at("a.md"));
    symlinkSync(join(sandbox.root, "outside", "secret.txt"), at("a.md"));
    expect(await readRegularFile(at("a.md"), 64, checked)).toEqual({ ok: false, reason: "changed" });
    // Without an identity to compare, a final link is still never followed.
    expect(await readRegularFile(at("a.md"), 64)).toEqual({ ok: false, reason: "not-regular", detail: "a symbolic link" });
  });

  test("a FIFO put in its place opens without waiting for a writer and is refused", async () => {
    const checked = identity("a.md");
    rmSync(at("a.md"));
    execFileSync("mkfifo", [at("a.md")]);
    expect(await readRegularFile(at("a.md"), 64, checked)).toEqual({ ok: false, reason: "not-regular", detail: "a FIFO" });
  });

  test("a file removed after it was checked", async () => {
    const checked = identity("a.md");
    rmSync(at("a.md"));
    expect(await readRegularFile(at("a.md"), 64, checked)).toEqual({ ok: false, reason: "changed" });
  });

  test("through the handle: a file over the budget is refused by its size, a device by its kind", async () => {
    writeFileSync(at("b.md"), "x".repeat(4096));
    expect(await readRegularFile(at("b.md"), 4095)).toEqual({ ok: false, reason: "too-large" });
    expect(await readRegularFile("/dev/zero", 16)).toEqual({ ok: false, reason: "not-regular", detail: "a character device" });
  });
});

describe("listConfinedFiles", () => {
  let sandbox: Sandbox;
  let areas: string[];
  const list = (folder: string, bounds: { maxDepth?: number; maxEntries?: number } = {}) =>
    listConfinedFiles(join(sandbox.project, folder), { areas, accept: (n) => n.endsWith(".md"), maxDepth: bounds.maxDepth ?? 4, maxFiles: 100, maxEntries: bounds.maxEntries ?? 1000 });
  const skips = (listing: ConfinedFolder) => listing.skipped.map((s) => `${s.path.slice(sandbox.project.length + 1)}: ${s.failure.reason}`);

  beforeEach(async () => {
    sandbox = makeSandbox();
    sandbox.write("outside/dir/evil.md", OUTSIDE);
    areas = await resolveAreas([sandbox.project]);
  });
  afterEach(() => sandbox.cleanup());

  test("the folder itself must stay inside: a linked folder leading out lists nothing", async () => {
    symlinkSync(join(sandbox.root, "outside", "dir"), join(sandbox.project, "prompts"));
    const listing = await list("prompts");
    expect(listing.files).toEqual([]);
    expect(skips(listing)).toEqual(["prompts: outside"]);
    expect(await list("absent")).toEqual({ files: [], skipped: [], folders: [] });
    sandbox.write("project/file-prompts", "a file where a folder should be");
    expect(skips(await list("file-prompts"))).toEqual(["file-prompts: not-a-folder"]);
  });

  test("each entry must stay inside and be regular; links inside are followed, loops entered once", async () => {
    sandbox.write("project/p/good.md", "good");
    sandbox.write("project/p/sub/nested.md", "nested");
    sandbox.write("project/p/.hidden.md", "hidden");
    sandbox.write("project/p/notes.txt", "not a template");
    symlinkSync(join(sandbox.root, "outside", "dir", "evil.md"), join(sandbox.project, "p", "evil.md"));
    symlinkSync(join(sandbox.root, "outside", "dir"), join(sandbox.project, "p", "outdir"));
    symlinkSync("/dev/zero", join(sandbox.project, "p", "zero.md"));
    symlinkSync("nowhere", join(sandbox.project, "p", "dangling.md"));
    symlinkSync(".", join(sandbox.project, "p", "loop"));
    symlinkSync("good.md", join(sandbox.project, "p", "alias.md"));
    execFileSync("mkfifo", [join(sandbox.project, "p", "fifo.md")]);
    const listing = await list("p");
    expect(listing.files.map((f) => [...f.segments, f.path.split("/").pop()].join("/"))).toEqual(["alias.md", "good.md", "sub/nested.md"]);
    expect(skips(listing)).toEqual(["p/dangling.md: dangling", "p/evil.md: outside", "p/fifo.md: not-regular", "p/outdir: outside", "p/zero.md: outside"]);
    expect(JSON.stringify(listing)).not.toContain(OUTSIDE);
  });

  test("nesting past the depth and folders past the entry budget are reported, not walked", async () => {
    sandbox.write("project/d/a/b/c/deep.md", "deep");
    expect(skips(await list("d", { maxDepth: 2 }))).toEqual(["d/a/b/c: too-deep"]);
    for (let i = 0; i < 20; i++) sandbox.write(`project/many/f${i}/x.md`, "x");
    const capped = await list("many", { maxEntries: 10 });
    expect(skips(capped)).toEqual(["many: too-many"]);
    expect(capped.files.length).toBeLessThan(10);
    for (let i = 0; i < 12; i++) sandbox.write(`project/flat/f${String(i).padStart(2, "0")}.md`, "x");
    const flat = await list("flat", { maxEntries: 10 });
    expect(flat.files.length).toBe(10);
    expect(skips(flat)).toEqual(["flat: too-many"]);
    expect(skips(await list("flat", { maxEntries: 12 }))).toEqual([]);
  });
});
