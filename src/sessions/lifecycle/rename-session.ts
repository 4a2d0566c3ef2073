/**
 * Renaming a session, live or stored: `session/set_title` and `/name`. A
 * title names one session in the store (serve's routes take it as `{ref}`),
 * so a title another session holds is refused; the claim is raced safely
 * across processes by `claimTitle`. A live session's title is recorded and
 * announced to every attached client; a stored one gets the entry in its
 * journal. Either way the automatic title from a first prompt never replaces it.
 * @module
 */
import { plainLine } from "../../runtime/plain-text.ts";
import { redactSecrets } from "../../runtime/secrets.ts";
import { newestTitle } from "../../store/session-title.ts";
import { claimTitle } from "../../store/title-claim.ts";
import type { LiveSession } from "../live-session.ts";
import { setTitle } from "../live-title.ts";
import type { AgentServices } from "../services.ts";
import { SessionError, storeFailure, unknownSession } from "../session-error.ts";

/** Longest title kept, in characters (code points); longer ones are cut. */
export const MAX_TITLE_LENGTH = 200;

/** A title as it is stored: one line, no control characters, single spaces, secrets hidden, at most 200 characters. */
export function normalizeTitle(raw: string): string {
  const line = redactSecrets(plainLine(raw)).replace(/\s+/g, " ").trim();
  const chars = Array.from(line);
  return chars.length <= MAX_TITLE_LENGTH ? line : chars.slice(0, MAX_TITLE_LENGTH).join("").trimEnd();
}

/** Gives a live session `title` unless another session holds it; false when taken. */
export async function retitleLive(services: AgentServices, live: LiveSession, title: string): Promise<boolean> {
  const previous = live.title ?? null;
  const holder = await claimTitle(services.store, title, {
    ownId: live.id,
    write: async () => {
      await setTitle(live, title);
      return live.id;
    },
    withdraw: async () => await setTitle(live, previous),
  });
  return holder !== undefined;
}

/** Gives a stored session that is not live `title` (through its journal) unless another session holds it; false when taken. */
async function retitleStored(services: AgentServices, sessionId: string, title: string): Promise<boolean> {
  let opened;
  try {
    opened = await services.store.open(sessionId);
  } catch (error) {
    throw storeFailure(error, sessionId);
  }
  const { journal } = opened;
  const newest = newestTitle(opened.entries);
  const previous = typeof newest === "string" ? newest : null;
  try {
    const holder = await claimTitle(services.store, title, {
      ownId: sessionId,
      write: async () => {
        await journal.append({ type: "title", title }, { sync: true });
        return sessionId;
      },
      withdraw: async () => await journal.append({ type: "title", title: previous }, { sync: true }),
    });
    return holder !== undefined;
  } catch (error) {
    throw storeFailure(error, sessionId);
  } finally {
    await journal.close();
  }
}

/** Tries a rename gets when the live session it found closes under it (each try waits for that close to end). */
const RENAME_TRIES = 3;

/**
 * Renames session `sessionId` (live in this process or only stored) and
 * answers the title stored. Refuses (`invalid_params`) a title that is empty
 * once normalized or that another session holds; `not_found` for an unknown
 * session, and for one archived or deleted while it was being renamed. A live
 * session closed (released) while it was being renamed is renamed in its
 * journal instead.
 */
export async function renameSession(services: AgentServices, sessionId: string, raw: string): Promise<string> {
  const title = normalizeTitle(raw);
  if (!title) throw new SessionError("invalid_params", "title is empty once trimmed; give a title with visible characters", { field: "title" });
  for (let attempt = 1; ; attempt++) {
    let closedUnder = false;
    const renamed = await services.sessions.withSession(sessionId, async (live) => {
      if (live) {
        try {
          return await retitleLive(services, live, title);
        } catch (error) {
          // Closed, archived or deleted meanwhile: its journal is shut. Tried again once that is over.
          if (!live.closed || attempt === RENAME_TRIES) throw error;
          closedUnder = true;
          return false;
        }
      }
      if (!(await services.store.exists(sessionId))) {
        throw unknownSession(sessionId);
      }
      return await retitleStored(services, sessionId, title);
    });
    if (closedUnder) continue;
    if (!renamed) throw new SessionError("invalid_params", `another session is already titled "${title}"; choose another title`, { title, code: "title_taken" });
    return title;
  }
}
