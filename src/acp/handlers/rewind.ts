/**
 * `_session/rewind` (the JetBrains AIR extension codex-acp and
 * claude-agent-acp serve): the user message `beforeMessage` names and
 * everything after it leave the conversation; answered `{rewound: true}`.
 * `_session/rewind_files {sessionId, beforeMessage, dryRun?}`: the files the
 * agent changed from that message on go back to how they were before it;
 * answered `{files: [{path, action, applied, reason?}]}`. A point that names
 * no message of the conversation, or one whose text differs, is refused
 * (-32602) and changes nothing. The rewind code loads when first called
 * (rewind-requests.ts).
 * @module
 */
import type { AgentServices } from "../../sessions/services.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";

/** The extension's method names. */
export const REWIND_METHODS = ["_session/rewind", "_session/rewind_files"] as const;

/** Registers `_session/rewind` and `_session/rewind_files`; their params are checked when their code has loaded. */
export function registerRewind(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  for (const method of REWIND_METHODS) {
    app.onRequest(
      method,
      (raw: unknown) => raw,
      async ({ params, signal, client }) => (await import("./rewind-requests.ts")).answerRewind(method, params, signal, services, state, client),
    );
  }
}
