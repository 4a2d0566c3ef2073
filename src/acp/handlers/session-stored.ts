/**
 * Working with stored sessions: `session/list`, `session/load` (replays the
 * whole conversation first), `session/resume` (no replay) and the unstable
 * `session/fork` (a new session with a copy of the history).
 * @module
 */
import * as v from "valibot";
import type { StoredEntry } from "../../store/types.ts";
import { forkSession } from "../../sessions/lifecycle/start-session.ts";
import { joinSession, type JoinRequest } from "../../sessions/lifecycle/join-session.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { storeFailure } from "../../sessions/session-error.ts";
import { sessionSettings } from "./config-options.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { invalidParams } from "../errors.ts";
import { META, ownParams } from "../params/own-params.ts";
import { isArchiveFilter } from "../../store/archive-marker.ts";
import type { JsonRpcId } from "../connection/jsonrpc-envelope.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { methods, type AgentContext } from "../sdk.ts";
import { announceSession } from "../updates/session-announce.ts";
import { joiningSessionClient, sessionClient } from "../updates/session-client.ts";
import { replayUpdates } from "../updates/session-replay.ts";

const ForkParams = v.object({
  sessionId: v.string(),
  cwd: v.string(),
  additionalDirectories: v.optional(v.array(v.string())),
  mcpServers: v.optional(v.array(v.unknown())),
});

/** `session/list` with the unstable `archived` filter, which the SDK's stable schema would drop. */
const ListParams = v.object({
  cwd: v.optional(v.nullable(v.string())),
  cursor: v.optional(v.nullable(v.string())),
  archived: v.optional(v.nullable(v.string())),
  _meta: META,
});

/** Shows the stored conversation to this client again, one `session/update` per step. */
async function replay(client: AgentContext, live: LiveSession, history: readonly StoredEntry[]): Promise<void> {
  // Only a replay shows the sources an answer cited again: loaded here, not with the session.
  const { sourcesText } = await import("../../models/citations.ts");
  for (const update of replayUpdates(history, sourcesText)) {
    await client.notify(methods.client.session.update, { sessionId: live.id, update });
  }
}

/**
 * `session/new`, `load` or `resume` on a connection scoped to one session:
 * binds that session (when the cwd matches) instead of creating one.
 */
export async function bindScopedSession(
  services: AgentServices,
  state: ConnectionState,
  request: { client: AgentContext; requestId: JsonRpcId },
  params: Omit<JoinRequest, "sessionId"> & { sessionId?: string },
  options: { replay: boolean },
) {
  const scope = state.scope!;
  if (params.sessionId !== undefined && params.sessionId !== scope.sessionId) {
    throw invalidParams(`this connection is scoped to session ${scope.sessionId}`, { sessionId: params.sessionId, scopedTo: scope.sessionId });
  }
  const { client, requestId } = request;
  const joining = joiningSessionClient(services, state, client, requestId);
  const { live, history } = await joinSession(services, { ...params, sessionId: scope.sessionId }, joining, { history: options.replay });
  state.bound = true;
  if (history) await replay(client, live, history);
  announceSession(state, requestId, client, live);
  return { sessionId: live.id, ...sessionSettings(live, services) };
}

/** Registers `session/list`, `session/load`, `session/resume` and `session/fork`. */
export function registerStoredSessions(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.list, ownParams(ListParams), async ({ params }) => {
    const archived = params.archived ?? "exclude";
    // Values a later protocol may add (or `_`-prefixed extensions) are refused, never read as `exclude`.
    if (!isArchiveFilter(archived)) throw invalidParams(`archived must be "exclude", "include" or "only", not ${JSON.stringify(archived.slice(0, 100))}`, { field: "archived" });
    try {
      const page = await services.store.list({
        ...(params.cwd ? { cwd: params.cwd } : {}),
        ...(params.cursor ? { cursor: params.cursor } : {}),
        archived,
      });
      return {
        sessions: page.sessions.map((s) => ({
          sessionId: s.id,
          cwd: s.cwd,
          ...(s.additionalDirectories.length > 0 ? { additionalDirectories: s.additionalDirectories } : {}),
          title: s.title ?? null,
          updatedAt: s.updatedAt,
          archived: s.archived,
        })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    } catch (error) {
      throw storeFailure(error, "");
    }
  });

  app.onRequest(methods.agent.session.load, async ({ params, client, requestId }) => {
    if (state.scope) {
      const { sessionId: _id, ...response } = await bindScopedSession(services, state, { client, requestId }, params, { replay: true });
      return response;
    }
    const joining = joiningSessionClient(services, state, client, requestId);
    const { live, history } = await joinSession(services, params, joining, { history: true });
    await replay(client, live, history ?? []);
    announceSession(state, requestId, client, live);
    return sessionSettings(live, services);
  });

  app.onRequest(methods.agent.session.resume, async ({ params, client, requestId }) => {
    if (state.scope) {
      const { sessionId: _id, ...response } = await bindScopedSession(services, state, { client, requestId }, params, { replay: false });
      return response;
    }
    const joining = joiningSessionClient(services, state, client, requestId);
    const { live } = await joinSession(services, params, joining, { history: false });
    announceSession(state, requestId, client, live);
    return sessionSettings(live, services);
  });

  app.onRequest("session/fork", ownParams(ForkParams), async ({ params, client, requestId }) => {
    if (state.scope) throw invalidParams(`this connection is scoped to session ${state.scope.sessionId}; fork it from /acp`);
    const live = await forkSession(services, params, sessionClient(services, state, client));
    announceSession(state, requestId, client, live);
    return { sessionId: live.id, ...sessionSettings(live, services) };
  });
}
