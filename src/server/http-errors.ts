/**
 * HTTP errors as JSON with a stable `code`, so scripts can branch on the
 * reason rather than parse the message. Bodies pass `redactValue`: no
 * registered secret leaves in a REST answer either. A message quotes what
 * the client sent only as a short excerpt, and is itself capped, so no
 * request can make an error answer large.
 * @module
 */
import { redactValue } from "../runtime/secrets.ts";

/** The longest error message sent, whatever built it. */
const MAX_MESSAGE_CHARS = 400;

/** At most `max` characters of client input for an error message, marked (with its length) when cut. */
export function excerpt(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/** A JSON error answer `{ error: { code, message } }`. */
export function jsonError(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  const capped = message.length <= MAX_MESSAGE_CHARS ? message : `${message.slice(0, MAX_MESSAGE_CHARS)}…`;
  return new Response(JSON.stringify(redactValue({ error: { code, message: capped } })), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** A JSON answer. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(redactValue(body)), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}

/** The 401 every route sends without a valid token (nothing else is revealed). */
export function unauthorized(): Response {
  return jsonError(401, "unauthorized", "missing or invalid bearer token", { "www-authenticate": 'Bearer realm="acp-edge"' });
}
