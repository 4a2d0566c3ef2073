/**
 * Why the sessions layer refused a request, in its own words; `src/acp/`
 * turns each kind into the protocol's error (see docs/protocol.md).
 * @module
 */
import { StoreError } from "../store/types.ts";

/** What went wrong, from the caller's point of view. */
export type SessionErrorKind =
  /** The request names something invalid (a field is given in `data`). */
  | "invalid_params"
  /** No such session (`data.sessionId`). */
  | "not_found"
  /** Credentials are needed; the message says what to do. */
  | "auth_required"
  /** Too many prompts or steering messages wait for the session's turn (`data.sessionId`, `data.queue`, `data.limit`). */
  | "queue_full"
  /** Not the caller's fault: broken configuration, a failing store. */
  | "internal";

/** A refusal of the sessions layer; the message is plain and may be shown to the user. */
export class SessionError extends Error {
  readonly kind: SessionErrorKind;
  readonly data: Record<string, unknown> | undefined;

  constructor(kind: SessionErrorKind, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = "SessionError";
    this.kind = kind;
    this.data = data;
  }
}

/** Longest session id an error repeats whole: a client's hostile id of megabytes is not echoed back. */
const ECHOED_ID_CHARS = 120;

/** The session id as an error shows it: whole when it could be an id, else its start and length. */
export function echoedSessionId(sessionId: string): string {
  if (sessionId.length <= ECHOED_ID_CHARS) return sessionId;
  return `${sessionId.slice(0, ECHOED_ID_CHARS)}… (${sessionId.length} characters)`;
}

/** `not_found` for session `sessionId` (its id echoed within bounds). */
export function unknownSession(sessionId: string): SessionError {
  return new SessionError("not_found", `unknown session: ${echoedSessionId(sessionId)}`, { sessionId: echoedSessionId(sessionId) });
}

/** A store failure as a session error with a message users can act on; other errors pass through. */
export function storeFailure(error: unknown, sessionId: string): unknown {
  if (!(error instanceof StoreError)) return error;
  switch (error.code) {
    case "not_found":
      return unknownSession(sessionId);
    case "invalid_cursor":
      return new SessionError("invalid_params", error.message, { cursor: true });
    default:
      return new SessionError("internal", error.message, { code: `session_${error.code}`, sessionId });
  }
}
