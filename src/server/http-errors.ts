/**
 * HTTP errors as JSON with a stable `code`, so scripts can branch on the
 * reason rather than parse the message. Bodies pass `redactValue`: no
 * registered secret leaves in a REST answer either.
 * @module
 */
import { redactValue } from "../runtime/secrets.ts";

/** A JSON error answer `{ error: { code, message } }`. */
export function jsonError(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(redactValue({ error: { code, message } })), {
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
