/**
 * Titles that must name one session only (REST creation, `/name`). Within
 * one process the check and the write happen under a lock per title, so of
 * many concurrent claims exactly one wins. Across processes sharing a
 * session directory there is no lock, so a claimant re-reads after writing:
 * one that then sees another session with the same title withdraws its claim
 * and reports the title as taken. Two claimants can therefore both withdraw,
 * but two can never both keep it.
 * @module
 */
import type { SessionStore, SessionSummary } from "./types.ts";

/** Tail of the chain of claims per title in this process. */
const claims = new Map<string, Promise<unknown>>();

/** Runs `task` after every earlier claim of `title` in this process has finished. */
async function serialized<T>(title: string, task: () => Promise<T>): Promise<T> {
  const previous = claims.get(title) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => undefined);
  claims.set(title, tail);
  try {
    return await run;
  } finally {
    if (claims.get(title) === tail) claims.delete(title);
  }
}

/**
 * Every session of the store, archived ones included, in one call: one snapshot (pages could miss a
 * session written to between them, see docs/storage.md), and one check of
 * the files instead of one per page.
 */
export async function listAllSessions(store: SessionStore): Promise<SessionSummary[]> {
  // Archived sessions keep their titles: a title names one session, archived or not.
  const page = await store.list({ limit: Number.MAX_SAFE_INTEGER, archived: "include" });
  return page.sessions;
}

/** Every stored session whose title is exactly `title`. */
export async function sessionsTitled(store: SessionStore, title: string): Promise<SessionSummary[]> {
  return (await listAllSessions(store)).filter((s) => s.title === title);
}

/** How to take a title: write it (answering the session's id), and take it back after losing a race. */
export interface TitleClaim {
  /** The session that is renamed; its own current title is no rival. Absent when `write` creates the session. */
  ownId?: string;
  /** Writes the title (synced) and answers the id of the session that now holds it. */
  write(): Promise<string>;
  /** Undoes `write` for the session `id`. */
  withdraw(id: string): Promise<void>;
}

/** The holder of `title` after the claim (the id from `claim.write`), or undefined when another session holds it. */
export async function claimTitle(store: SessionStore, title: string, claim: TitleClaim): Promise<string | undefined> {
  return await serialized(title, async () => {
    if ((await sessionsTitled(store, title)).some((s) => s.id !== claim.ownId)) return undefined;
    const id = await claim.write();
    // Another process may have written the same title meanwhile: whoever sees a rival after writing gives way.
    if ((await sessionsTitled(store, title)).some((s) => s.id !== id)) {
      await claim.withdraw(id);
      return undefined;
    }
    return id;
  });
}
