/**
 * The JSON-RPC errors acp-edge answers with, in one place so their codes and
 * wording stay consistent (see docs/protocol.md).
 * @module
 */
import { redact } from "../runtime/secrets.ts";
import { echoedSessionId, SessionError } from "../sessions/session-error.ts";
import { RequestError } from "./sdk.ts";

/** The agent-type method: credentials stored by `acp-edge login` or set in the environment. */
export const AUTH_METHOD_ID = "acp-edge-credentials";
/** The terminal-type method: the client runs `acp-edge login` in a terminal. */
export const TERMINAL_AUTH_METHOD_ID = "acp-edge-login";
/** Every method `authenticate` accepts (a client may pass the terminal one after running it). */
export const AUTH_METHOD_IDS: readonly string[] = [AUTH_METHOD_ID, TERMINAL_AUTH_METHOD_ID];

/** -32000: credentials or `authenticate` are needed; the message says what to do. */
export function authRequired(message: string): RequestError {
  return new RequestError(-32000, redact(message), { authMethods: [AUTH_METHOD_ID] });
}

/** -32002 with `data.sessionId`. */
export function sessionNotFound(sessionId: string): RequestError {
  const shown = echoedSessionId(sessionId);
  return new RequestError(-32002, `unknown session: ${shown}`, { sessionId: shown });
}

/** -32603 with `data.code = "session_busy"`. */
export function sessionBusy(sessionId: string): RequestError {
  return new RequestError(-32603, "session is already processing a prompt", { code: "session_busy", sessionId });
}

/** -32603 with `data.code = "queue_full"`: the session's prompt queue (or its steering messages) is at its bound. */
export function queueFull(message: string, data: Record<string, unknown> | undefined): RequestError {
  return new RequestError(-32603, message, { ...data, code: "queue_full" });
}

/** -32602 with a message that names the offending field. */
export function invalidParams(message: string, data?: Record<string, unknown>): RequestError {
  return new RequestError(-32602, `Invalid params: ${redact(message)}`, data);
}

/** -32603 for failures that are not the client's fault (provider errors, broken config). */
export function internalError(message: string, data?: Record<string, unknown>): RequestError {
  return new RequestError(-32603, redact(message), data);
}

/** Unexpected exceptions become a short internal error; the message never carries secrets. */
export function toRequestError(error: unknown): RequestError {
  error = protocolError(error);
  if (error instanceof RequestError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return internalError(`Internal error: ${message}`);
}

/** A refusal of the sessions layer as the protocol's error; anything else is returned unchanged. */
export function protocolError(error: unknown): unknown {
  if (!(error instanceof SessionError)) return error;
  switch (error.kind) {
    case "invalid_params":
      return invalidParams(error.message, error.data);
    case "not_found":
      // Its id is shortened already (see unknownSession): shortening it again would state the wrong length.
      return new RequestError(-32002, error.message, error.data);
    case "auth_required":
      return authRequired(error.message);
    case "queue_full":
      return queueFull(error.message, error.data);
    case "internal":
      return internalError(error.message, error.data);
  }
}
