/**
 * Creating and ending sessions: `session/new`, `session/close` and
 * `session/delete`.
 * @module
 */
import { AUTH_METHOD_ID, authRequired, invalidParams, sessionNotFound } from "../errors.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { sessionSettings } from "./config-options.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { methods } from "../sdk.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { announceSession } from "../updates/session-announce.ts";
import { sessionClient } from "../updates/session-client.ts";
import { deleteSession } from "../../sessions/lifecycle/delete-session.ts";
import { detachClient } from "../../sessions/session-attach.ts";
import { checkScope } from "./session-access.ts";
import { bindScopedSession } from "./session-stored.ts";

/** Registers `session/new`, `session/close` and `session/delete`. */
export function registerSessionLifecycle(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.new, async ({ params, client, requestId }) => {
    if (!state.authenticated) {
      throw authRequired(`This connection logged out. Call authenticate with methodId "${AUTH_METHOD_ID}" before session/new.`);
    }
    if (state.scope) return await bindScopedSession(services, state, { client, requestId }, params, { replay: false });
    // Loaded on first use: the engine, tools and prompt code are not needed to answer `initialize`.
    const { startSession } = await import("../../sessions/lifecycle/start-session.ts");
    const live = await startSession(services, params, sessionClient(services, state, client));
    announceSession(state, requestId, client, live);
    return { sessionId: live.id, ...sessionSettings(live, services) };
  });

  // Detaches this client; the session is released when no client is left (it stays on disk).
  app.onRequest(methods.agent.session.close, async ({ params }) => {
    checkScope(state, params.sessionId);
    if (!state.sessions.has(params.sessionId)) throw sessionNotFound(params.sessionId);
    state.sessions.delete(params.sessionId);
    await detachClient(services, state.id, params.sessionId);
    return {};
  });

  app.onRequest(methods.agent.session.delete, async ({ params }) => {
    if (state.scope) throw invalidParams(`this connection is scoped to session ${state.scope.sessionId}; delete sessions with DELETE /v1/sessions/{id}`);
    state.sessions.delete(params.sessionId);
    await deleteSession(services, params.sessionId);
    return {};
  });
}
