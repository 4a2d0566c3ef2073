/**
 * `_session/rewind` (the JetBrains AIR extension codex-acp and
 * claude-agent-acp serve): the user message `beforeMessage` names and
 * everything after it leave the conversation; answered `{rewound: true}`.
 * `_session/rewind_files {sessionId, beforeMessage, dryRun?}`: the files the
 * agent changed from that message on go back to how they were before it;
 * answered `{files: [{path, action, applied, reason?}]}`. A point that names
 * no message of the conversation, or one whose text differs, is refused
 * (-32602) and changes nothing. The rewind code loads when first called.
 * @module
 */
import type { AgentServices } from "../../sessions/services.ts";
import type { FileOutcome } from "../../sessions/checkpoints/restore-files.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { attachedSession } from "./session-access.ts";

/** The extension's method names. */
export const REWIND_METHOD = "_session/rewind";
export const REWIND_FILES_METHOD = "_session/rewind_files";

/** Params are checked in the handlers, with the rest of the rewind code loaded on first use. */
const raw = (params: unknown) => params;

/** Registers `_session/rewind` and `_session/rewind_files`. */
export function registerRewind(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(REWIND_METHOD, raw, async ({ params: given, signal }): Promise<{ rewound: true }> => {
    const [{ parseRewindParams }, { rewindConversation }] = await Promise.all([import("../params/rewind-params.ts"), import("../../sessions/rewind/rewind-conversation.ts")]);
    const params = parseRewindParams(given);
    const live = attachedSession(services, state, params.sessionId);
    await rewindConversation(services, live, { clientId: state.id, signal, point: params.beforeMessage });
    return { rewound: true };
  });

  app.onRequest(REWIND_FILES_METHOD, raw, async ({ params: given, signal }): Promise<{ files: FileOutcome[] }> => {
    const [{ parseRewindFilesParams }, { rewindFiles }, { findPoint }] = await Promise.all([
      import("../params/rewind-params.ts"),
      import("../../sessions/checkpoints/rewind-files.ts"),
      import("../../sessions/rewind/rewind-points.ts"),
    ]);
    const params = parseRewindFilesParams(given);
    const live = attachedSession(services, state, params.sessionId);
    const files = await rewindFiles(services, live, { clientId: state.id, signal, dryRun: params.dryRun === true, pick: (points) => findPoint(points, params.beforeMessage) });
    return { files };
  });
}
