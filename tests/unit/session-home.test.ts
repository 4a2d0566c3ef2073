/**
 * Resolving the session an `/apc` upgrade names: an id is looked up alone,
 * without listing every stored session and without reading the session's
 * conversation (only its header); a title still needs the list.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveSessionHome } from "../../src/server/session-refs.ts";
import { createJsonlStore } from "../../src/store/jsonl-store.ts";
import { createMemoryStore } from "../../src/store/memory-store.ts";
import type { SessionStore } from "../../src/store/types.ts";

/** The store, counting the pages listed. */
function counting(store: SessionStore): { store: SessionStore; lists: () => number } {
  let lists = 0;
  const wrapped: SessionStore = {
    ...store,
    list: (options) => {
      lists += 1;
      return store.list(options);
    },
  };
  return { store: wrapped, lists: () => lists };
}

describe("resolveSessionHome", () => {
  test("an id is found without listing the sessions; a title and an unknown ref are looked up in the list", async () => {
    const memory = createMemoryStore();
    const journal = await memory.create({ id: "ses_home_one", cwd: "/srv/project-a", additionalDirectories: [] });
    await journal.append({ type: "title", title: "named" });
    await journal.close();
    const { store, lists } = counting(memory);

    expect(await resolveSessionHome(store, "ses_home_one")).toEqual({ ok: true, id: "ses_home_one", cwd: "/srv/project-a" });
    expect(lists()).toBe(0);

    expect(await resolveSessionHome(store, "named")).toEqual({ ok: true, id: "ses_home_one", cwd: "/srv/project-a" });
    expect(lists()).toBeGreaterThan(0);

    const unknown = await resolveSessionHome(store, "ses_not_there");
    expect(unknown).toMatchObject({ ok: false, code: "session_not_found" });
    expect(lists()).toBeGreaterThan(0);
  });
});

/** The store, counting whole sessions read (every entry parsed). */
function countingReads(store: SessionStore): { store: SessionStore; reads: () => number } {
  let reads = 0;
  const wrapped: SessionStore = {
    ...store,
    read: (id) => {
      reads += 1;
      return store.read(id);
    },
  };
  return { store: wrapped, reads: () => reads };
}

describe("resolveSessionHome on the JSONL store", () => {
  test("an id is resolved from the session's header: a long conversation is not read on every upgrade", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-edge-home-"));
    try {
      const jsonl = createJsonlStore(dir);
      const journal = await jsonl.create({ id: "ses_home_long", cwd: "/srv/project-b", additionalDirectories: [] });
      const text = "x".repeat(64 * 1024);
      for (let i = 0; i < 64; i++) await journal.append({ type: "message", message: { role: "user", content: [{ type: "text", text }] } });
      await journal.close();
      const { store, reads } = countingReads(jsonl);

      expect(await resolveSessionHome(store, "ses_home_long")).toEqual({ ok: true, id: "ses_home_long", cwd: "/srv/project-b" });
      expect(reads()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
