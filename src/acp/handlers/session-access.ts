/**
 * Which session a request may touch: one this connection is attached to.
 * A connection scoped to one durable session (the `/apc` route) must bind
 * it first and may not reach any other.
 * @module
 */
import type { ConnectionState } from "../connection/connection-state.ts";
import { invalidParams, sessionNotFound } from "../errors.ts";
import { RequestError } from "../sdk.ts";
import type { AgentServices } from "../../sessions/services.ts";
import type { LiveSession } from "../../sessions/live-session.ts";

/** Refuses ids outside a scoped connection's session (methods that need not be attached to the session, such as `session/status`). */
export function inScope(state: ConnectionState, sessionId: string): void {
  const scope = state.scope;
  if (scope && sessionId !== scope.sessionId) {
    throw invalidParams(`this connection is scoped to session ${scope.sessionId}`, { sessionId, scopedTo: scope.sessionId });
  }
}

/** Refuses ids outside a scoped connection's session, and session methods before it is bound. */
export function checkScope(state: ConnectionState, sessionId: string): void {
  inScope(state, sessionId);
  if (state.scope && !state.bound) throw new RequestError(-32600, "Invalid request: call session/new or session/load before session methods");
}

/**
 * The live session `sessionId`, when this connection may touch it and is attached to it. The session
 * must have this connection as a client: one that was closed under it (archived, deleted) and opened
 * again by another client is not its own until it loads or resumes it.
 */
export function attachedSession(services: AgentServices, state: ConnectionState, sessionId: string): LiveSession {
  checkScope(state, sessionId);
  const live = state.sessions.has(sessionId) ? services.sessions.get(sessionId) : undefined;
  if (!live?.hasClient(state.id)) throw sessionNotFound(sessionId);
  return live;
}
