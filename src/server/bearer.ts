/**
 * The bearer token check: `Authorization: Bearer <token>`, or — on WebSocket
 * upgrades only, because browsers cannot set headers on a WebSocket — a
 * subprotocol entry `acp.bearer.<token>`. Compared in constant time.
 * @module
 */
import { offeredSubprotocols } from "../runtime/websocket/websocket-offer.ts";

export const SUBPROTOCOL = "agent-client-protocol.v1";
export const BEARER_PREFIX = "acp.bearer.";

/** Every credential the request presents (header and subprotocol entries). */
function presented(request: Request): string[] {
  const found: string[] = [];
  const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (header) found.push(header[1]!);
  for (const entry of offeredSubprotocols(request)) if (entry.startsWith(BEARER_PREFIX)) found.push(entry.slice(BEARER_PREFIX.length));
  return found;
}

/** Constant-time comparison: the time taken does not depend on where the strings differ. */
export function sameToken(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  const length = Math.max(x.length, y.length);
  for (let i = 0; i < length; i += 1) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Whether any credential an upgrade request presents (header or subprotocol entry) is the token. */
export function isAuthorizedUpgrade(request: Request, token: string): boolean {
  let ok = false;
  for (const candidate of presented(request)) if (sameToken(candidate, token)) ok = true;
  return ok;
}

/** The `Authorization: Bearer` header alone: every request but an upgrade (a subprotocol entry means nothing there). */
export function isAuthorizedByHeader(request: Request, token: string): boolean {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return header !== null && sameToken(header[1]!, token);
}
