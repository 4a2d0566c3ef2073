/**
 * Resolving the session an `/apc` upgrade names: an id is looked up alone,
 * without listing every stored session; a title still needs the list.
 */
import { describe, expect, test } from "bun:test";
import { resolveSessionHome } from "../../src/server/session-refs.ts";
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
