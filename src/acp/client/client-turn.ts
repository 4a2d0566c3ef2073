/**
 * What a turn started by one client uses: its permission requests and the
 * `ask` tool's questions go to that client, and files and terminals are
 * reached through it when it offers them.
 * @module
 */
import type { TurnOptions } from "../../engine/session.ts";
import { askTools } from "./ask-user.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import { clientWorkspace, editorFiles } from "./client-workspace.ts";
import type { EditorFiles } from "../../sessions/checkpoints/restore-files.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { createAuthorizer } from "../permissions/authorizer.ts";
import type { AgentContext } from "../sdk.ts";

/** The turn options of a prompt (or steering message) that `client` sent on `live`. */
export function clientTurnOptions(live: LiveSession, client: AgentContext, state: ConnectionState): TurnOptions {
  return {
    authorize: createAuthorizer({ live, client }),
    workspace: clientWorkspace(live.agent.workspace, client, state.clientCapabilities, live.id),
    ...askTools(live, client, state),
  };
}

/** `{editor}` when `client` reads or writes files for the agent (a rewind restores through it), else nothing. */
export function editorOf(client: AgentContext, state: ConnectionState, sessionId: string): { editor?: EditorFiles } {
  const editor = editorFiles(client, state.clientCapabilities, sessionId);
  return editor ? { editor } : {};
}
