/**
 * Creating and ending sessions: `session/new`, `session/close` and
 * `session/delete`.
 * @module
 */
import { AUTH_METHOD_ID, authRequired, invalidParams, sessionNotFound } from "../errors.ts";
import type { ConnectionState } from "../connection-state.ts";
import { methods, type AgentApp } from "../sdk.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { configOptions, modeState } from "../../sessions/session-settings.ts";
import { storeFailure } from "../../sessions/revive-session.ts";
import { announceSession } from "../session-announce.ts";
import { StoreError } from "../../store/types.ts";
import { attachConnection, detachConnection } from "../../sessions/session-attach.ts";
import { checkScope } from "../session-access.ts";
import { bindScopedSession } from "./session-stored.ts";
import { connectMcpServers } from "../../sessions/session-mcp.ts";

export function registerSessionLifecycle(app: AgentApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.new, async ({ params, client }) => {
    if (!state.authenticated) {
      throw authRequired(`This connection logged out. Call authenticate with methodId "${AUTH_METHOD_ID}" before session/new.`);
    }
    if (state.scope) return await bindScopedSession(services, state, client, params, { replay: false });
    // Loaded on first use: the engine, tools and prompt code are not needed to answer `initialize`.
    const { openSession } = await import("../../sessions/open-session.ts");
    const live = await openSession(services, {
      cwd: params.cwd,
      ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
      journal: (id) => services.store.create({ id, cwd: params.cwd, additionalDirectories: params.additionalDirectories ?? [] }),
    });
    await live.recorder.write({ type: "config", mode: live.mode, model: `${live.agent.model.info.provider}/${live.agent.model.info.id}`, thinking: live.agent.thinking }, true);
    services.sessions.add(live);
    await connectMcpServers(live, params.mcpServers);
    attachConnection(live, state, client);
    announceSession(client, live, services);
    return { sessionId: live.agent.id, modes: modeState(live), configOptions: configOptions(live, services) };
  });

  // Detaches this client; the session is released when no client is left (it stays on disk).
  app.onRequest(methods.agent.session.close, async ({ params }) => {
    checkScope(state, params.sessionId);
    if (!state.sessions.has(params.sessionId)) throw sessionNotFound(params.sessionId);
    await detachConnection(services, state, params.sessionId);
    return {};
  });

  app.onRequest(methods.agent.session.delete, async ({ params }) => {
    if (state.scope) throw invalidParams(`this connection is scoped to session ${state.scope.sessionId}; delete sessions with DELETE /v1/sessions/{id}`);
    await services.sessions.release(params.sessionId);
    state.sessions.delete(params.sessionId);
    try {
      await services.store.delete(params.sessionId);
    } catch (error) {
      // Deleting what is not there succeeds: the session is gone either way.
      if (!(error instanceof StoreError && error.code === "not_found")) throw storeFailure(error, params.sessionId);
    }
    return {};
  });
}
