/**
 * The unstable `session/archive`, `session/unarchive` and `session/status`.
 * Archiving ends the session in this process for every attached client (as
 * `session/close` would) and hides it from the default `session/list`;
 * unarchiving only shows it again. `status` says whether the session is open
 * in this process (`open`) or only stored (`saved`), changing nothing.
 * @module
 */
import { archiveSession, unarchiveSession } from "../../sessions/lifecycle/archive-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { sessionStatus } from "../../sessions/session-status.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { ownParams, SessionIdParams } from "../params/own-params.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { inScope } from "./session-access.ts";

/** Registers `session/archive`, `session/unarchive` and `session/status`. */
export function registerSessionArchive(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest("session/archive", ownParams(SessionIdParams), async ({ params }) => {
    inScope(state, params.sessionId);
    await archiveSession(services, params.sessionId, state.id);
    state.sessions.delete(params.sessionId);
    return {};
  });

  app.onRequest("session/unarchive", ownParams(SessionIdParams), async ({ params }) => {
    inScope(state, params.sessionId);
    await unarchiveSession(services, params.sessionId);
    return {};
  });

  app.onRequest("session/status", ownParams(SessionIdParams), async ({ params }) => {
    inScope(state, params.sessionId);
    return await sessionStatus(services, params.sessionId);
  });
}
