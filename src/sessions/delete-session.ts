/**
 * Deleting a session: released from memory if it is live (its turn
 * cancelled), then removed from the store with its saved output.
 * @module
 */
import type { AgentServices } from "./services.ts";
import { storeFailure } from "./session-error.ts";
import { StoreError } from "../store/types.ts";

/** Deletes a session; deleting one that is not there succeeds (it is gone either way). */
export async function deleteSession(services: AgentServices, sessionId: string): Promise<void> {
  await services.sessions.release(sessionId);
  try {
    await services.store.delete(sessionId);
  } catch (error) {
    if (!(error instanceof StoreError && error.code === "not_found")) throw storeFailure(error, sessionId);
  }
}
