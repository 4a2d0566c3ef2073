/**
 * `_session/rewind` (the JetBrains AIR extension codex-acp and
 * claude-agent-acp serve): the user message `beforeMessage` names and
 * everything after it leave the conversation; answered `{rewound: true}`.
 * A point that names no message of the conversation, or one whose text
 * differs, is refused (-32602) and changes nothing. The rewind code loads
 * when the method is first called.
 * @module
 */
import type { AgentServices } from "../../sessions/services.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { attachedSession } from "./session-access.ts";

/** The extension's method name. */
export const REWIND_METHOD = "_session/rewind";

/** Registers `_session/rewind`. */
export function registerRewind(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  // Params are checked in the handler, with the rest of the rewind code loaded on first use.
  app.onRequest(REWIND_METHOD, (raw: unknown) => raw, async ({ params: raw, signal }): Promise<{ rewound: true }> => {
    const [{ parseRewindParams }, { rewindConversation }] = await Promise.all([import("../params/rewind-params.ts"), import("../../sessions/rewind/rewind-conversation.ts")]);
    const params = parseRewindParams(raw);
    const live = attachedSession(services, state, params.sessionId);
    await rewindConversation(services, live, { clientId: state.id, signal, point: params.beforeMessage });
    return { rewound: true };
  });
}
