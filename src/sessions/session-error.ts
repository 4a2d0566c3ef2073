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
  /** The session is already running a turn (`data.sessionId`). */
  | "busy"
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

/** A store failure as a session error with a message users can act on; other errors pass through. */
export function storeFailure(error: unknown, sessionId: string): unknown {
  if (!(error instanceof StoreError)) return error;
  switch (error.code) {
    case "not_found":
      return new SessionError("not_found", `unknown session: ${sessionId}`, { sessionId });
    case "invalid_cursor":
      return new SessionError("invalid_params", error.message, { cursor: true });
    default:
      return new SessionError("internal", error.message, { code: `session_${error.code}`, sessionId });
  }
}
