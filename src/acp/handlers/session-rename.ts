/**
 * The unstable `session/set_title`: a client names a session, live or only
 * stored. The title is normalized (one line, at most 200 characters), must be
 * one no other stored session holds, is stored before the answer and shown to
 * every attached client with `session_info_update`; the title taken from a
 * first prompt never replaces it.
 * @module
 */
import * as v from "valibot";
import { renameSession } from "../../sessions/lifecycle/rename-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { META, ownParams } from "../params/own-params.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { inScope } from "./session-access.ts";

/** Titles are cut to 200 characters; what is read of a longer one is bounded before it is normalized. */
const SetTitleParams = v.object({ sessionId: v.string(), title: v.pipe(v.string(), v.maxLength(64 * 1024, "title is over 64 KiB")), _meta: META });

/** Registers `session/set_title`. */
export function registerSessionTitle(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest("session/set_title", ownParams(SetTitleParams), async ({ params }) => {
    inScope(state, params.sessionId);
    return { title: await renameSession(services, params.sessionId, params.title) };
  });
}
