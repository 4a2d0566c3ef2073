/**
 * One behaviour for both session stores: everything here must hold for the
 * JSONL store and for the in-memory store used by `--no-session`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rejection } from "../helpers/expect-error.ts";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import { registerSecret } from "../../src/runtime/secrets.ts";
import { StoreError, type SessionStore, type SessionSummary } from "../../src/store/types.ts";

const root = mkdtempSync(join(tmpdir(), "acp-edge-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

const stores: Array<[string, () => SessionStore]> = [
  ["jsonl", () => createJsonlStore(join(root, `store-${++counter}`))],
  ["memory", () => createMemoryStore()],
];

const storeError = (promise: Promise<unknown>): Promise<StoreError> => rejection(promise, StoreError);

const userMessage = (text: string) => ({ type: "message", message: { role: "user", content: [{ type: "text", text }] } });

describe.each(stores)("%s store", (_name, makeStore) => {
  test("create, append, close, open, append more, read", async () => {
    const store = makeStore();
    const journal = await store.create({ id: "sess_a", cwd: "/home/u/a", additionalDirectories: ["/home/u/lib"] });
    expect(journal.id).toBe("sess_a");
    await journal.append(userMessage("hello"));
    await journal.append({ type: "mode", mode: "ask" }, { sync: true });
    await journal.append({ type: "future_thing", payload: { deep: [1, 2] } });
    await journal.close();
    await journal.close(); // idempotent

    const opened = await store.open("sess_a");
    expect(opened.header).toMatchObject({ type: "session", version: 1, id: "sess_a", cwd: "/home/u/a", additionalDirectories: ["/home/u/lib"] });
    expect(Date.parse(opened.header.createdAt)).not.toBeNaN();
    expect(opened.entries.map((e) => e.type)).toEqual(["message", "mode", "future_thing"]);
    expect(opened.entries[2]).toMatchObject({ payload: { deep: [1, 2] } });
    for (const entry of opened.entries) expect(Date.parse(String(entry.at))).not.toBeNaN();
    expect(opened.warnings).toEqual([]);

    await opened.journal.append({ type: "title", title: "Later" });
    await opened.journal.sync();
    const seen = await store.read("sess_a"); // readable while open
    expect(seen.entries.map((e) => e.type)).toEqual(["message", "mode", "future_thing", "title"]);
    await opened.journal.close();
    await expect(opened.journal.append({ type: "x" })).rejects.toThrow(/closed/);
    expect(await store.exists("sess_a")).toBe(true);
    expect(await store.exists("sess_nope")).toBe(false);
  });

  test("header reads the header alone, the same as read gives; an unknown id is not_found", async () => {
    const store = makeStore();
    const journal = await store.create({ id: "sess_head", cwd: "/home/u/h", additionalDirectories: ["/home/u/lib"] });
    await journal.append(userMessage("hello"), { sync: true });
    await journal.close();
    expect(await store.header("sess_head")).toEqual((await store.read("sess_head")).header);
    expect((await storeError(store.header("sess_missing"))).code).toBe("not_found");
  });

  test("entries come back as written, and later changes to the object do not leak in", async () => {
    const store = makeStore();
    const journal = await store.create({ id: "sess_copy", cwd: "/w", additionalDirectories: [], forkedFrom: "sess_a" });
    const entry = { type: "note", text: "line\nwith \"quotes\" and ✓", at: "2020-01-01T00:00:00.000Z" };
    const pending = journal.append(entry);
    entry.text = "changed";
    await pending;
    await journal.close();
    const { header, entries } = await store.read("sess_copy");
    expect(header.forkedFrom).toBe("sess_a");
    expect(entries).toEqual([{ type: "note", at: "2020-01-01T00:00:00.000Z", text: "line\nwith \"quotes\" and ✓" }]);
  });

  test("list filters by cwd and pages past 130 sessions, newest first", async () => {
    const store = makeStore();
    for (let i = 0; i < 130; i++) {
      const id = `sess_${String(i).padStart(3, "0")}`;
      const journal = await store.create({ id, cwd: i % 10 === 0 ? "/other" : "/proj", additionalDirectories: [] });
      await journal.append(userMessage(`prompt ${i}`));
      await journal.close();
    }
    const seen: SessionSummary[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list({ cwd: "/proj", limit: 25, ...(cursor ? { cursor } : {}) });
      seen.push(...page.sessions);
      cursor = page.nextCursor;
      if (cursor) expect(page.sessions).toHaveLength(25);
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBe(5); // 117 sessions in /proj
    expect(seen).toHaveLength(117);
    expect(new Set(seen.map((s) => s.id)).size).toBe(117);
    expect(seen.every((s) => s.cwd === "/proj")).toBe(true);
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1]!.updatedAt >= seen[i]!.updatedAt).toBe(true);

    const all = await store.list();
    expect(all.sessions).toHaveLength(50);
    expect(all.nextCursor).toBeDefined();
    const other = await store.list({ cwd: "/other" });
    expect(other.sessions).toHaveLength(13);
    expect(other.nextCursor).toBeUndefined();
    expect(await store.list({ cwd: "/nowhere" })).toEqual({ sessions: [] });
  });

  test("the session appended to last lists first", async () => {
    const store = makeStore();
    for (const id of ["sess_old", "sess_new"]) await (await store.create({ id, cwd: "/p", additionalDirectories: [] })).close();
    await Bun.sleep(15);
    const { journal } = await store.open("sess_old");
    await journal.append({ type: "mode", mode: "yolo" }, { sync: true });
    await journal.close();
    const { sessions } = await store.list();
    expect(sessions.map((s) => s.id)).toEqual(["sess_old", "sess_new"]);
    expect(sessions[0]!.updatedAt > sessions[1]!.updatedAt).toBe(true);
  });

  test("a garbled cursor is refused", async () => {
    const store = makeStore();
    for (const cursor of ["not a cursor!", "eyJ4IjoxfQ", ""]) {
      const error = await storeError(store.list({ cursor }));
      expect(error.code).toBe("invalid_cursor");
      expect(error.message).toBe("invalid cursor");
    }
  });

  test("titles: the newest title entry wins, else the first user prompt", async () => {
    const store = makeStore();
    const a = await store.create({ id: "sess_titled", cwd: "/t", additionalDirectories: [] });
    await a.append(userMessage("first prompt"));
    await a.append({ type: "title", title: "Old title" });
    await a.append({ type: "title", title: "New title" });
    await a.close();
    const b = await store.create({ id: "sess_prompted", cwd: "/t", additionalDirectories: [] });
    await b.append({ type: "message", message: { role: "assistant", content: [{ type: "text", text: "not me" }] } });
    await b.append({
      type: "message",
      message: { role: "user", content: [{ type: "image", data: "", mimeType: "image/png" }, { type: "text", text: `  ${"x".repeat(100)}\nsecond line` }] },
    });
    await b.append(userMessage("later prompt"));
    await b.close();
    const c = await store.create({ id: "sess_untitled", cwd: "/t", additionalDirectories: [] });
    await c.close();
    const d = await store.create({ id: "sess_short", cwd: "/t", additionalDirectories: [] });
    await d.append(userMessage("Fix the build\nplease"));
    await d.close();

    const byId = new Map((await store.list({ cwd: "/t" })).sessions.map((s) => [s.id, s]));
    expect(byId.get("sess_titled")?.title).toBe("New title");
    expect(byId.get("sess_prompted")?.title).toBe(`${"x".repeat(79)}…`);
    expect(byId.get("sess_untitled")?.title).toBeUndefined();
    expect(byId.get("sess_short")?.title).toBe("Fix the build");
  });

  test("delete is idempotent, removes the session from list, and open/read then fail", async () => {
    const store = makeStore();
    await (await store.create({ id: "sess_del", cwd: "/d", additionalDirectories: [] })).close();
    await (await store.create({ id: "sess_keep", cwd: "/d", additionalDirectories: [] })).close();
    await store.delete("sess_del");
    await store.delete("sess_del");
    await store.delete("sess_never_existed");
    expect((await store.list()).sessions.map((s) => s.id)).toEqual(["sess_keep"]);
    expect(await store.exists("sess_del")).toBe(false);
    expect((await storeError(store.open("sess_del"))).code).toBe("not_found");
    expect((await storeError(store.read("sess_del"))).code).toBe("not_found");
  });

  test("archive: hidden from the default list, shown by include and only, idempotent, kept by a new store, gone with delete", async () => {
    const store = makeStore();
    for (const id of ["sess_arch_a", "sess_arch_b", "sess_arch_c"]) await (await store.create({ id, cwd: "/arch", additionalDirectories: [] })).close();
    const ids = async (archived?: "exclude" | "include" | "only") =>
      (await store.list({ cwd: "/arch", ...(archived ? { archived } : {}) })).sessions.map((s) => `${s.id}:${s.archived}`).sort();
    expect(await ids()).toEqual(["sess_arch_a:false", "sess_arch_b:false", "sess_arch_c:false"]);
    await store.setArchived("sess_arch_b", true);
    await store.setArchived("sess_arch_b", true);
    expect(await ids()).toEqual(["sess_arch_a:false", "sess_arch_c:false"]);
    expect(await ids("exclude")).toEqual(["sess_arch_a:false", "sess_arch_c:false"]);
    expect(await ids("include")).toEqual(["sess_arch_a:false", "sess_arch_b:true", "sess_arch_c:false"]);
    expect(await ids("only")).toEqual(["sess_arch_b:true"]);
    // Still there to read, open and page through.
    expect((await store.read("sess_arch_b")).header.id).toBe("sess_arch_b");
    await store.setArchived("sess_arch_b", false);
    await store.setArchived("sess_arch_b", false);
    await store.setArchived("sess_arch_c", true);
    expect(await ids("only")).toEqual(["sess_arch_c:true"]);
    expect((await storeError(store.setArchived("sess_arch_nope", true))).code).toBe("not_found");
    await store.delete("sess_arch_c");
    expect(await ids("include")).toEqual(["sess_arch_a:false", "sess_arch_b:false"]);
  });

  test("a session's output directory is private, kept across calls and removed by delete", async () => {
    const store = makeStore();
    const journal = await store.create({ id: "sess_out", cwd: "/w", additionalDirectories: [] });
    const dir = await store.outputDirectory("sess_out");
    expect(statSync(dir).isDirectory()).toBe(true);
    if (process.platform !== "win32") expect(statSync(dir).mode & 0o077).toBe(0);
    writeFileSync(join(dir, "full-output.log"), "saved output");
    expect(await store.outputDirectory("sess_out")).toBe(dir);
    expect(existsSync(join(dir, "full-output.log"))).toBe(true);
    await journal.close();
    await store.delete("sess_out");
    expect(existsSync(dir)).toBe(false);
    expect((await storeError(store.outputDirectory("sess_out"))).code).toBe("not_found");
  });

  test("secrets are hidden in stored entries, escaped spellings included", async () => {
    const key = 'sk-store-"secret"-0123456789';
    registerSecret(key);
    const store = makeStore();
    const journal = await store.create({ id: "sess_key", cwd: "/w", additionalDirectories: [] });
    await journal.append({ type: "note", text: `key=${key}`, nested: [{ [key]: key }] });
    await journal.close();
    const { entries } = await store.read("sess_key");
    expect(JSON.stringify(entries)).not.toContain("secret");
    expect(entries[0]).toMatchObject({ text: "key=[redacted]", nested: [{ "[redacted]": "[redacted]" }] });
  });

  test("deleting a session open in this process stops its journal", async () => {
    const store = makeStore();
    const journal = await store.create({ id: "sess_gone", cwd: "/d", additionalDirectories: [] });
    await store.delete("sess_gone");
    expect((await storeError(journal.append({ type: "x" }))).code).toBe("not_found");
    await journal.close();
    expect(await store.exists("sess_gone")).toBe(false);
  });

  test("unknown ids are not found; a second open while open is locked", async () => {
    const store = makeStore();
    const error = await storeError(store.open("sess_unknown"));
    expect(error.code).toBe("not_found");
    expect(error.message).toContain("sess_unknown");

    const journal = await store.create({ id: "sess_busy", cwd: "/b", additionalDirectories: [] });
    const locked = await storeError(store.open("sess_busy"));
    expect(locked.code).toBe("locked");
    expect(locked.message).toContain("already open in this process");
    await journal.close();
    const again = await store.open("sess_busy");
    expect((await storeError(store.open("sess_busy"))).code).toBe("locked");
    await again.journal.close();
  });

  test("a second create with the same id is refused", async () => {
    const store = makeStore();
    await (await store.create({ id: "sess_dup", cwd: "/one", additionalDirectories: [] })).close();
    const error = await storeError(store.create({ id: "sess_dup", cwd: "/two", additionalDirectories: [] }));
    expect(error.message).toContain("already exists");
  });

  test("hostile ids are refused everywhere", async () => {
    const store = makeStore();
    for (const id of ["../../x", "a/b", "..", "", "sess x", "sess_\u0000", "x".repeat(200)]) {
      expect((await storeError(store.create({ id, cwd: "/h", additionalDirectories: [] }))).code).toBe("not_found");
      expect((await storeError(store.open(id))).code).toBe("not_found");
      expect((await storeError(store.read(id))).code).toBe("not_found");
      expect((await storeError(store.delete(id))).code).toBe("not_found");
      expect((await storeError(store.setArchived(id, true))).code).toBe("not_found");
      expect((await storeError(store.setArchived(id, false))).code).toBe("not_found");
      expect(await store.exists(id)).toBe(false);
    }
    expect((await store.list()).sessions).toEqual([]);
  });

  test("appends keep their call order", async () => {
    const store = makeStore();
    const journal = await store.create({ id: "sess_order", cwd: "/o", additionalDirectories: [] });
    await Promise.all(Array.from({ length: 50 }, (_, n) => journal.append({ type: "n", n }, { sync: n % 10 === 0 })));
    await journal.close();
    expect((await store.read("sess_order")).entries.map((e) => e.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });
});
