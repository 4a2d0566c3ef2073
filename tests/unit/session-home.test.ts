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

/** The store, counting the calls of one of its methods (`list`: pages listed; `read`: whole sessions read). */
function counting(store: SessionStore, method: "list" | "read"): { store: SessionStore; calls: () => number } {
  let calls = 0;
  const original = store[method] as (...args: unknown[]) => unknown;
  const wrapped = {
    ...store,
    [method]: (...args: unknown[]) => {
      calls += 1;
      return original.apply(store, args);
    },
  } as SessionStore;
  return { store: wrapped, calls: () => calls };
}

describe("resolveSessionHome", () => {
  test("an id is found without listing the sessions; a title and an unknown ref are looked up in the list", async () => {
    const memory = createMemoryStore();
    const journal = await memory.create({ id: "ses_home_one", cwd: "/srv/project-a", additionalDirectories: [] });
    await journal.append({ type: "title", title: "named" });
    await journal.close();
    const { store, calls: lists } = counting(memory, "list");

    expect(await resolveSessionHome(store, "ses_home_one")).toEqual({ ok: true, id: "ses_home_one", cwd: "/srv/project-a" });
    expect(lists()).toBe(0);

    expect(await resolveSessionHome(store, "named")).toEqual({ ok: true, id: "ses_home_one", cwd: "/srv/project-a" });
    expect(lists()).toBeGreaterThan(0);

    const unknown = await resolveSessionHome(store, "ses_not_there");
    expect(unknown).toMatchObject({ ok: false, code: "session_not_found" });
    expect(lists()).toBeGreaterThan(0);
  });
});

describe("resolveSessionHome on the JSONL store", () => {
  test("an id is resolved from the session's header: a long conversation is not read on every upgrade", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-edge-home-"));
    try {
      const jsonl = createJsonlStore(dir);
      const journal = await jsonl.create({ id: "ses_home_long", cwd: "/srv/project-b", additionalDirectories: [] });
      const text = "x".repeat(64 * 1024);
      for (let i = 0; i < 64; i++) await journal.append({ type: "message", message: { role: "user", content: [{ type: "text", text }] } });
      await journal.close();
      const { store, calls: reads } = counting(jsonl, "read");

      expect(await resolveSessionHome(store, "ses_home_long")).toEqual({ ok: true, id: "ses_home_long", cwd: "/srv/project-b" });
      expect(reads()).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
