/**
 * Deleting a session: released from memory if it is live (its turn
 * cancelled), then removed from the store with its saved output, before
 * anyone may open it again.
 * @module
 */
import type { AgentServices } from "../services.ts";
import { storeFailure } from "../session-error.ts";
import { StoreError } from "../../store/types.ts";

/** Deletes a session; deleting one that is not there succeeds (it is gone either way). */
export async function deleteSession(services: AgentServices, sessionId: string): Promise<void> {
  // Removed from the store before any join may open it again (a join between the release and the delete would
  // hold a session whose files are going).
  const reason = "the session was deleted";
  // Its clients on other connections (the server's `/apc` sockets) go first, as the REST API's delete does.
  services.sessions.deleting(sessionId, reason);
  await services.sessions.whileReleased(sessionId, reason, async () => {
    try {
      await services.store.delete(sessionId);
    } catch (error) {
      if (!(error instanceof StoreError && error.code === "not_found")) throw storeFailure(error, sessionId);
    }
  });
}
