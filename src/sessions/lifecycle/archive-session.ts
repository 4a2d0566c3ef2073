/**
 * Archiving a session: it ends in this process as `session/close` would
 * end it for every attached client at once (its turn cancelled and awaited,
 * its journal flushed and closed), then it is marked archived in the store,
 * which leaves it out of the default list. Its id and history stay; loading
 * or resuming it works as before. Unarchiving only clears the mark.
 * @module
 */
import type { AgentServices } from "../services.ts";
import { broadcast } from "../session-broadcast.ts";
import { storeFailure } from "../session-error.ts";

/** What the clients of an archived session are told before it closes. */
const ARCHIVED_NOTICE = "This session was archived and is closed here; unarchive it and load it again to continue.\n";

/**
 * Archives `sessionId`; archiving an archived session succeeds. The clients
 * attached to it (but `requesterId`, which asked) are told before it closes.
 * `not_found` for an unknown session; a session another acp-edge process
 * holds open is refused (`internal`, `session_locked`).
 */
export async function archiveSession(services: AgentServices, sessionId: string, requesterId?: string): Promise<void> {
  const live = services.sessions.get(sessionId);
  if (live) await broadcast(live, { type: "message", text: ARCHIVED_NOTICE }, requesterId);
  await services.sessions.whileReleased(sessionId, "the session was archived", async () => {
    try {
      await services.store.setArchived(sessionId, true);
    } catch (error) {
      throw storeFailure(error, sessionId);
    }
  });
}

/** Takes `sessionId` out of the archive; one that is not archived stays as it is. Never loads or resumes it. */
export async function unarchiveSession(services: AgentServices, sessionId: string): Promise<void> {
  try {
    await services.store.setArchived(sessionId, false);
  } catch (error) {
    throw storeFailure(error, sessionId);
  }
}
