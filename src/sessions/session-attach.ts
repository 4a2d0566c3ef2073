/**
 * Detaching clients from sessions. A session lives in memory while at least
 * one client is attached; when the last one leaves, its turn is cancelled,
 * its journal flushed and it is released (it stays on disk). A client
 * leaving cancels the turn it started.
 * @module
 */
import type { AgentServices } from "./services.ts";

/** Detaches a client from one session, releasing the session when it was the last. */
export async function detachClient(services: AgentServices, clientId: string, sessionId: string): Promise<void> {
  const live = services.sessions.get(sessionId);
  if (!live) return;
  const remaining = live.detach(clientId);
  live.cancelTurnOf(clientId, "the client that started the turn left");
  if (remaining === 0) await services.sessions.release(sessionId);
}

/** Cancels the turn `clientId` started in any of `sessionIds` (its input ended: it can answer nothing more). */
export function cancelTurnsOf(services: AgentServices, clientId: string, sessionIds: Iterable<string>, reason: string): void {
  for (const id of sessionIds) services.sessions.get(id)?.cancelTurnOf(clientId, reason);
}
