/**
 * The work of `_session/rewind` and `_session/rewind_files` (registered in
 * rewind.ts): params checked, the session found, the rewind run.
 * @module
 */
import type { AgentServices } from "../../sessions/services.ts";
import type { FileOutcome } from "../../sessions/checkpoints/restore-files.ts";
import { rewindFiles } from "../../sessions/checkpoints/rewind-files.ts";
import { rewindConversation } from "../../sessions/rewind/rewind-conversation.ts";
import { findPoint } from "../../sessions/rewind/rewind-points.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { parseRewindFilesParams, parseRewindParams } from "../params/rewind-params.ts";
import { attachedSession } from "./session-access.ts";
import { editorOf } from "../client/client-turn.ts";
import type { AgentContext } from "../sdk.ts";

/** Answers one request of either method. */
export async function answerRewind(
  method: "_session/rewind" | "_session/rewind_files",
  raw: unknown,
  signal: AbortSignal,
  services: AgentServices,
  state: ConnectionState,
  client: AgentContext,
): Promise<{ rewound: true } | { files: FileOutcome[] }> {
  if (method === "_session/rewind") {
    const params = parseRewindParams(raw);
    const live = attachedSession(services, state, params.sessionId);
    const resumeAt = params.resumeAtMessage ?? undefined;
    await rewindConversation(services, live, { clientId: state.id, signal, point: (points) => findPoint(points, params.beforeMessage, resumeAt) });
    return { rewound: true };
  }
  const params = parseRewindFilesParams(raw);
  const live = attachedSession(services, state, params.sessionId);
  const files = await rewindFiles(services, live, { clientId: state.id, signal, dryRun: params.dryRun === true, pick: (points) => findPoint(points, params.beforeMessage), ...editorOf(client, state, live.id) });
  return { files };
}
