/**
 * The list index of the JSONL store: a cache of what `list` shows, kept in
 * memory and in each session folder's `.list-index.json`. Whatever happens to
 * the files or to the index between calls, `list` answers what the files say.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cwdSlug } from "../../src/store/cwd-slug.ts";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";
import { LIST_INDEX_NAME, parseIndex, serialiseIndex } from "../../src/store/list-index-file.ts";
import type { SessionStore, SessionSummary } from "../../src/store/types.ts";
import { ROOT } from "../helpers/agent-process.ts";

const root = mkdtempSync(join(tmpdir(), "acp-edge-list-index-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const freshDir = () => join(root, `s${++counter}`);

/**
 * A store whose index trusts an unchanged key at once. By default a file
 * changed in the last 3 s is read again on every call (its timestamps may not
 * show a further change), and files written by a test always are that fresh.
 */
const cachingStore = (dir: string) => createJsonlStore(dir, { listIndex: { racyMs: 0 } });

/** Lets the clock move past the files' ctimes, so a caching store trusts what it reads next (no timing is asserted). */
const settle = () => Bun.sleep(5);

/** Seconds ago, as a Date: files written by tests get distinct, settled mtimes (not "racy"). */
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);

/** A session file as the store writes it: header, a user prompt, padding, a title entry. */
function writeSession(dir: string, id: string, options: { cwd?: string; title?: string; prompt?: string; mtime?: Date } = {}): string {
  const cwd = options.cwd ?? "/srv/project";
  const folder = join(dir, cwdSlug(cwd));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${id}.jsonl`);
  const lines = [
    { type: "session", version: 1, id, cwd, additionalDirectories: [], createdAt: "2025-01-01T00:00:00.000Z" },
    { type: "message", at: "2025-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: options.prompt ?? `prompt of ${id}` }] } },
    { type: "tool_result", at: "2025-01-01T00:00:02.000Z", output: "o".repeat(2000) },
    ...(options.title === undefined ? [] : [{ type: "title", at: "2025-01-01T00:00:03.000Z", title: options.title }]),
  ];
  writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  utimesSync(file, options.mtime ?? ago(100), options.mtime ?? ago(100));
  return file;
}

async function all(store: SessionStore, options: { cwd?: string } = {}): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ ...options, limit: 7, ...(cursor ? { cursor } : {}) });
    out.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** id → title of every listed session. */
async function titles(store: SessionStore, options: { cwd?: string } = {}): Promise<Record<string, string | undefined>> {
  return Object.fromEntries((await all(store, options)).map((s) => [s.id, s.title]));
}

const indexPath = (dir: string, cwd = "/srv/project") => join(dir, cwdSlug(cwd), LIST_INDEX_NAME);
const readIndex = (dir: string, cwd?: string) => JSON.parse(readFileSync(indexPath(dir, cwd), "utf8"));

describe("list index", () => {
  test("a first list writes the folder's index (private), and a new store answers from it", async () => {
    const dir = freshDir();
    for (let i = 0; i < 20; i++) writeSession(dir, `sess_${i}`, { title: `title ${i}`, mtime: ago(100 + i) });
    const expected = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`sess_${i}`, `title ${i}`]));
    await settle();
    expect(await titles(cachingStore(dir))).toEqual(expected);
    const index = readIndex(dir);
    expect(index).toMatchObject({ format: "acp-edge-list-index", version: 1 });
    expect(index.entries).toHaveLength(20);
    expect(statSync(indexPath(dir)).mode & 0o777).toBe(0o600);

    // The index is really used: a doctored summary whose key still matches the file is what a new store shows.
    const doctored = { ...index, entries: index.entries.map((e: { id: string; summary: object }) => (e.id === "sess_3" ? { ...e, summary: { ...e.summary, title: "from the index" } } : e)) };
    writeFileSync(indexPath(dir), JSON.stringify(doctored));
    expect((await titles(cachingStore(dir))).sess_3).toBe("from the index");
  });

  test("sessions added, appended to, deleted and hand-edited between calls are listed as the files say", async () => {
    const dir = freshDir();
    const files = Array.from({ length: 10 }, (_, i) => writeSession(dir, `sess_${i}`, { title: `t${i}`, mtime: ago(200 + i) }));
    const store = cachingStore(dir);
    await settle();
    await titles(store);

    writeSession(dir, "sess_new", { title: "added", mtime: ago(50) });
    appendFileSync(files[1]!, `${JSON.stringify({ type: "title", at: "2025-01-02T00:00:00.000Z", title: "appended" })}\n`);
    const appendedAt = ago(40);
    utimesSync(files[1]!, appendedAt, appendedAt);
    unlinkSync(files[2]!);
    // Same size, mtime put back: only the ctime tells the file changed.
    const before = statSync(files[3]!);
    writeFileSync(files[3]!, readFileSync(files[3]!, "utf8").replace('"title":"t3"', '"title":"e3"'));
    utimesSync(files[3]!, before.atime, before.mtime);
    expect(statSync(files[3]!).size).toBe(before.size);
    // Damaged by hand: no longer a session (left out), until repaired.
    writeFileSync(files[4]!, "not a header\n");
    utimesSync(files[4]!, ago(30), ago(30));

    const expected = { ...Object.fromEntries(files.map((_, i) => [`sess_${i}`, `t${i}`])), sess_new: "added", sess_1: "appended", sess_3: "e3" };
    delete (expected as Record<string, string>).sess_2;
    delete (expected as Record<string, string>).sess_4;
    // The same store (warm) and a new one (from the index file) agree with the files.
    expect(await titles(store)).toEqual(expected);
    expect(await titles(cachingStore(dir))).toEqual(expected);
    const listed = await all(store);
    expect(Math.abs(Date.parse(listed.find((s) => s.id === "sess_1")!.updatedAt) - appendedAt.getTime())).toBeLessThan(1000);
    expect(listed.map((s) => s.id).slice(0, 2)).toEqual(["sess_1", "sess_new"]);

    writeSession(dir, "sess_4", { title: "repaired", mtime: ago(20) });
    expect((await titles(store)).sess_4).toBe("repaired");
  });

  test("a file rewritten right after it was read, same size and mtime put back, is read again", async () => {
    const dir = freshDir();
    const file = writeSession(dir, "sess_racy", { title: "aaaa", mtime: new Date() });
    const store = createJsonlStore(dir);
    expect((await titles(store)).sess_racy).toBe("aaaa");
    const before = statSync(file);
    writeFileSync(file, readFileSync(file, "utf8").replace('"aaaa"', '"bbbb"'));
    utimesSync(file, before.atime, before.mtime);
    expect((await titles(store)).sess_racy).toBe("bbbb");
    expect((await titles(createJsonlStore(dir))).sess_racy).toBe("bbbb");
  });

  for (const [what, content] of [
    ["truncated", (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ["garbage", () => "\u0000\u0001 not json at all"],
    ["empty", () => ""],
    ["an older version", (text: string) => text.replace('"version":1', '"version":0')],
    ["mistyped entries", (text: string) => text.replace(/"size":\d+/, '"size":"12"')],
    ["another JSON file", () => '{"entries":[]}'],
  ] as const) {
    test(`an index file that is ${what} is rebuilt from the files`, async () => {
      const dir = freshDir();
      for (let i = 0; i < 5; i++) writeSession(dir, `sess_${i}`, { title: `t${i}`, mtime: ago(100 + i) });
      await titles(cachingStore(dir));
      writeFileSync(indexPath(dir), content(readFileSync(indexPath(dir), "utf8")));
      writeSession(dir, "sess_5", { title: "t5", mtime: ago(10) });
      expect(await titles(cachingStore(dir))).toEqual({ sess_0: "t0", sess_1: "t1", sess_2: "t2", sess_3: "t3", sess_4: "t4", sess_5: "t5" });
      expect(readIndex(dir).entries.map((e: { id: string }) => e.id).sort()).toEqual(["sess_0", "sess_1", "sess_2", "sess_3", "sess_4", "sess_5"]);
    });
  }

  test("a stale index (files changed, gone and new since it was written) is corrected", async () => {
    const dir = freshDir();
    const files = Array.from({ length: 6 }, (_, i) => writeSession(dir, `sess_${i}`, { title: `t${i}`, mtime: ago(100 + i) }));
    await titles(cachingStore(dir));
    const stale = readFileSync(indexPath(dir), "utf8");
    unlinkSync(files[0]!);
    writeSession(dir, "sess_1", { title: "rewritten", mtime: ago(50) });
    writeSession(dir, "sess_9", { title: "t9", mtime: ago(40) });
    writeFileSync(indexPath(dir), stale);
    expect(await titles(cachingStore(dir))).toEqual({ sess_1: "rewritten", sess_2: "t2", sess_3: "t3", sess_4: "t4", sess_5: "t5", sess_9: "t9" });
  });

  test("an index from a newer version is not used and not overwritten", async () => {
    const dir = freshDir();
    for (let i = 0; i < 3; i++) writeSession(dir, `sess_${i}`, { title: `t${i}`, mtime: ago(100 + i) });
    mkdirSync(join(dir, cwdSlug("/srv/project")), { recursive: true });
    const newer = JSON.stringify({ format: "acp-edge-list-index", version: 2, entries: "something else" });
    writeFileSync(indexPath(dir), newer);
    const store = cachingStore(dir);
    expect(await titles(store)).toEqual({ sess_0: "t0", sess_1: "t1", sess_2: "t2" });
    for (let i = 3; i < 40; i++) writeSession(dir, `sess_${i}`, { title: `t${i}`, mtime: ago(100 + i) });
    expect(Object.keys(await titles(store))).toHaveLength(40);
    expect(readFileSync(indexPath(dir), "utf8")).toBe(newer);
  });

  test("an index entry for a file that is not a session any more, or was replaced by another id's file, is not trusted", async () => {
    const dir = freshDir();
    const file = writeSession(dir, "sess_a", { title: "a", mtime: ago(100) });
    await titles(cachingStore(dir));
    // Another session's content under this name, size and times made equal to the indexed ones.
    const before = statSync(file);
    const other = readFileSync(file, "utf8").replaceAll("sess_a", "sess_b");
    writeFileSync(file, other);
    utimesSync(file, before.atime, before.mtime);
    expect(await titles(cachingStore(dir))).toEqual({});
  });

  test("a cwd filter reads and indexes only that project's folder", async () => {
    const dir = freshDir();
    writeSession(dir, "sess_a1", { cwd: "/p/a", title: "a1", mtime: ago(100) });
    writeSession(dir, "sess_a2", { cwd: "/p/a", title: "a2", mtime: ago(101) });
    writeSession(dir, "sess_b1", { cwd: "/p/b", title: "b1", mtime: ago(102) });
    // Shares /p/a's folder (a slug collision): filtered out by its header's cwd.
    writeSession(dir, "sess_c1", { cwd: "/p/a", title: "c1", mtime: ago(103) });
    const file = join(dir, cwdSlug("/p/a"), "sess_c1.jsonl");
    writeFileSync(file, readFileSync(file, "utf8").replace('"cwd":"/p/a"', '"cwd":"/p?a"'));
    const store = cachingStore(dir);
    expect(await titles(store, { cwd: "/p/a" })).toEqual({ sess_a1: "a1", sess_a2: "a2" });
    expect(existsSync(indexPath(dir, "/p/a"))).toBe(true);
    expect(existsSync(indexPath(dir, "/p/b"))).toBe(false);
    expect(await titles(store, { cwd: "/p/nothing" })).toEqual({});
    expect(await titles(store)).toEqual({ sess_a1: "a1", sess_a2: "a2", sess_b1: "b1", sess_c1: "c1" });
    expect(existsSync(indexPath(dir, "/p/b"))).toBe(true);
  });

  test("sessions added while paging neither repeat nor hide the sessions that were there", async () => {
    const dir = freshDir();
    const before = Array.from({ length: 23 }, (_, i) => `sess_old${String(i).padStart(2, "0")}`);
    // Some share a timestamp: the id breaks the tie.
    const base = Date.now() - 100_000;
    before.forEach((id, i) => writeSession(dir, id, { mtime: new Date(base - Math.floor(i / 2) * 1000) }));
    const store = cachingStore(dir);
    const seen: string[] = [];
    let cursor: string | undefined;
    let added = 0;
    do {
      const page = await store.list({ limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor;
      // New sessions, through the store and by hand (one with the same time as the newest old one).
      const journal = await store.create({ id: `sess_new${added}`, cwd: "/srv/project", additionalDirectories: [] });
      await journal.close();
      writeSession(dir, `sess_hand${added}`, { mtime: new Date(base) });
      added++;
    } while (cursor);
    expect(added).toBeGreaterThan(3);
    expect(seen.filter((id) => id.startsWith("sess_old"))).toEqual(before);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("archive markers set and cleared through the store or by hand are listed as the markers say, warm and from the index file", async () => {
    const dir = freshDir();
    const folder = join(dir, cwdSlug("/srv/project"));
    for (let i = 0; i < 6; i++) writeSession(dir, `sess_${i}`, { title: `t${i}`, mtime: ago(100 + i) });
    const store = cachingStore(dir);
    const flags = async (which: SessionStore) =>
      Object.fromEntries((await which.list({ archived: "include", limit: 100 })).sessions.map((s) => [s.id, s.archived]));
    const none = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`sess_${i}`, false]));
    await settle();
    expect(await flags(store)).toEqual(none);

    await store.setArchived("sess_1", true);
    writeFileSync(join(folder, "sess_2.archived"), "");
    // Not markers: a folder and a link of that name, and a marker whose journal does not exist.
    mkdirSync(join(folder, "sess_3.archived"));
    symlinkSync(join(folder, "sess_2.archived"), join(folder, "sess_4.archived"));
    writeFileSync(join(folder, "sess_zz.archived"), "");
    await settle();
    const archived = { ...none, sess_1: true, sess_2: true };
    expect(await flags(store)).toEqual(archived);
    expect(await flags(cachingStore(dir))).toEqual(archived);
    expect((await store.list()).sessions.map((s) => s.id).sort()).toEqual(["sess_0", "sess_3", "sess_4", "sess_5"]);
    expect((await store.list({ archived: "only" })).sessions.map((s) => s.id).sort()).toEqual(["sess_1", "sess_2"]);
    // The index file keeps the flag with the summary (a cache: the markers decide, as above with a stale index).
    const entries = [...Array.from({ length: 3 }, (_, i) => ({ id: `sess_${i}`, size: 1, mtimeMs: 1, ctimeMs: 1, ino: i, checkedAt: 2, summary: { id: `sess_${i}`, cwd: "/c", additionalDirectories: [], createdAt: "2025-01-01T00:00:00.000Z", updatedAt: "", archived: i === 1 } }))];
    const parsed = parseIndex(serialiseIndex(entries));
    expect(parsed.kind === "entries" && parsed.entries.map((e) => e.summary?.archived)).toEqual([false, true, false]);
    expect(parseIndex(serialiseIndex(entries).replace('"archived":true', '"archived":"yes"')).kind).toBe("invalid");
    // A marker path that is not a file cannot be archived over, and is left alone by unarchiving.
    await expect(store.setArchived("sess_3", true)).rejects.toThrow(/not a regular file/);
    await store.setArchived("sess_3", false);
    expect(existsSync(join(folder, "sess_3.archived"))).toBe(true);

    await store.setArchived("sess_1", false);
    unlinkSync(join(folder, "sess_2.archived"));
    await settle();
    expect(await flags(store)).toEqual(none);
    expect(await flags(cachingStore(dir))).toEqual(none);
  });

  test("a session file too big to cache in the index (a huge title) is still listed, every time", async () => {
    const dir = freshDir();
    const huge = "h".repeat(40_000);
    writeSession(dir, "sess_big", { title: huge, mtime: ago(100) });
    writeSession(dir, "sess_small", { title: "small", mtime: ago(101) });
    const store = cachingStore(dir);
    expect(await titles(store)).toEqual({ sess_big: huge, sess_small: "small" });
    expect(await titles(store)).toEqual({ sess_big: huge, sess_small: "small" });
    expect(readFileSync(indexPath(dir), "utf8")).not.toContain(huge);
    expect(await titles(cachingStore(dir))).toEqual({ sess_big: huge, sess_small: "small" });
  });

  test("a folder removed between calls lists nothing and its sessions are gone", async () => {
    const dir = freshDir();
    writeSession(dir, "sess_a", { cwd: "/p/a", mtime: ago(100) });
    writeSession(dir, "sess_b", { cwd: "/p/b", mtime: ago(100) });
    const store = cachingStore(dir);
    expect(Object.keys(await titles(store)).sort()).toEqual(["sess_a", "sess_b"]);
    rmSync(join(dir, cwdSlug("/p/a")), { recursive: true });
    expect(Object.keys(await titles(store))).toEqual(["sess_b"]);
    expect(Object.keys(await titles(store, { cwd: "/p/a" }))).toEqual([]);
  });

  test("temporary index files left by a crashed writer are removed once old", async () => {
    const dir = freshDir();
    writeSession(dir, "sess_a", { mtime: ago(100) });
    const folder = join(dir, cwdSlug("/srv/project"));
    const old = join(folder, `.${LIST_INDEX_NAME}.0123456789ab.tmp`);
    const fresh = join(folder, `.${LIST_INDEX_NAME}.ba9876543210.tmp`);
    writeFileSync(old, "{");
    utimesSync(old, ago(7200), ago(7200));
    writeFileSync(fresh, "{");
    await titles(cachingStore(dir));
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  test("two processes listing (bun and deno) while a third writes: nothing lost, repeated or misreported", async () => {
    const dir = freshDir();
    const existing = 12;
    const created = 40;
    for (let n = 0; n < existing; n++) writeSession(dir, `sess_p${n}`, { cwd: "/shared", title: `p${n}`, mtime: ago(100 + n) });
    const stopFile = join(dir, "..", `stop-${counter}`);
    const helper = (name: string) => join(ROOT, "tests", "helpers", name);
    const run = (command: string, args: string[]) => {
      const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.stderr.on("data", (chunk) => (out += chunk));
      const exited = new Promise<{ code: number | null; out: string }>((resolve) => child.on("close", (code) => resolve({ code, out })));
      return { child, exited, output: () => out };
    };
    const bun = process.execPath;
    const deno = join(ROOT, "node_modules", ".bin", "deno");
    const listers = [
      run(bun, [helper("list-index-lister.ts"), dir, stopFile, String(existing), "0"]),
      run(deno, ["run", "-A", "--quiet", helper("list-index-lister.ts"), dir, stopFile, String(existing), "3000"]),
    ];
    const writer = run(bun, [helper("list-index-writer.ts"), dir, String(created), String(existing)]);
    const written = await writer.exited;
    writeFileSync(stopFile, "");
    expect(written).toEqual({ code: 0, out: "done\n" });
    for (const lister of listers) {
      const result = await lister.exited;
      expect(result.out).toMatch(/^ok \d+\n$/);
      expect(result.code).toBe(0);
    }
    const expected = {
      ...Object.fromEntries(Array.from({ length: existing }, (_, n) => [`sess_p${n}`, `updated ${n}`])),
      ...Object.fromEntries(Array.from({ length: created }, (_, n) => [`sess_w${n}`, `w${n}`])),
    };
    expect(await titles(createJsonlStore(dir))).toEqual(expected);
    expect(await titles(cachingStore(dir))).toEqual(expected);
    expect(readIndex(dir, "/shared")).toMatchObject({ format: "acp-edge-list-index", version: 1 });
  }, 60_000);

  test("titles and prompts spelled with \\u escapes are found in both windows of a big file", async () => {
    const dir = freshDir();
    const file = writeSession(dir, "sess_esc", { prompt: "ignored", mtime: ago(100) });
    // Replace the plain prompt by an escaped one, add bulk, then an escaped title at the end.
    writeFileSync(file, readFileSync(file, "utf8").replace('{"type":"message"', '{"type":"mess\\u0061ge"').replace('"role":"user"', '"role":"\\u0075ser"'));
    utimesSync(file, ago(100), ago(100));
    expect((await titles(cachingStore(dir))).sess_esc).toBe("ignored");
    appendFileSync(file, `${JSON.stringify({ type: "tool_result", output: "o".repeat(100_000) })}\n{"type":"t\\u0069tle","title":"escaped \\u0074itle"}\n`);
    utimesSync(file, ago(50), ago(50));
    expect((await titles(cachingStore(dir))).sess_esc).toBe("escaped title");
  });

  test("an index written on one runtime is used as it is on another (bun here, deno there)", async () => {
    const dir = freshDir();
    for (let i = 0; i < 4; i++) writeSession(dir, `sess_${i}`, { title: `t${i}`, mtime: new Date(Date.now() - 100_000 - i * 1000 - 0.25) });
    // Default settings on both sides: the files' ctimes must be older than the 3 s racy window.
    await Bun.sleep(3200);
    await titles(createJsonlStore(dir));
    const index = readIndex(dir);
    index.entries = index.entries.map((e: { id: string; summary: object }) => (e.id === "sess_2" ? { ...e, summary: { ...e.summary, title: "from the index" } } : e));
    writeFileSync(indexPath(dir), JSON.stringify(index));
    const deno = spawnSync(join(ROOT, "node_modules", ".bin", "deno"), ["run", "-A", "--quiet", join(ROOT, "tests", "helpers", "list-titles.ts"), dir], { encoding: "utf8" });
    expect(deno.stderr).toBe("");
    expect(JSON.parse(deno.stdout)).toEqual({ sess_0: "t0", sess_1: "t1", sess_2: "from the index", sess_3: "t3" });
  }, 30_000);
});
