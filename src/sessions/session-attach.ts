/**
 * Attaching clients to sessions and detaching them. A session lives in
 * memory while at least one client is attached; when the last one leaves,
 * its turn is cancelled, its journal flushed and it is released (it stays on
 * disk). A client leaving cancels the turn it started.
 * @module
 */
import type { LiveSession, SessionClient } from "./live-session.ts";
import type { AgentServices } from "./services.ts";

/** Attaches a client: from now on it sees every update of the session. */
export function attachClient(live: LiveSession, client: SessionClient): void {
  live.subscribers.set(client.id, client);
  client.attached(live.agent.id);
}

/** Detaches a client from one session, releasing the session when it was the last. */
export async function detachClient(services: AgentServices, clientId: string, sessionId: string): Promise<void> {
  const live = services.sessions.get(sessionId);
  if (!live) return;
  live.subscribers.delete(clientId);
  if (live.turnOwner === clientId) live.agent.cancel("the client that started the turn left");
  if (live.subscribers.size === 0) await services.sessions.release(sessionId);
}
