/**
 * Attaching connections to sessions and detaching them. A session lives in
 * memory while at least one connection is attached; when the last one
 * leaves, its turn is cancelled, its journal flushed and it is released
 * (it stays on disk). A connection leaving cancels the turn it started.
 * @module
 */
import type { ConnectionState } from "../acp/connection-state.ts";
import type { AgentContext } from "../acp/sdk.ts";
import type { AgentServices } from "./services.ts";
import type { LiveSession } from "./session-registry.ts";

export function attachConnection(live: LiveSession, state: ConnectionState, client: AgentContext): void {
  live.subscribers.set(state.id, { id: state.id, client, capabilities: state.clientCapabilities });
  state.sessions.add(live.agent.id);
}

export async function detachConnection(services: AgentServices, state: ConnectionState, sessionId: string): Promise<void> {
  state.sessions.delete(sessionId);
  const live = services.sessions.get(sessionId);
  if (!live) return;
  live.subscribers.delete(state.id);
  if (live.turnOwner === state.id) live.agent.cancel("the client that started the turn left");
  if (live.subscribers.size === 0) await services.sessions.release(sessionId);
}

/** Detaches a connection from everything it was attached to (it closed or went away). */
export async function detachAll(services: AgentServices, state: ConnectionState): Promise<void> {
  await Promise.all([...state.sessions].map((id) => detachConnection(services, state, id)));
}
