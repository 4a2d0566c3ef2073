/**
 * What a WebSocket upgrade request offers as subprotocols, and which one the
 * answer selects: the application's when offered, none when none is, and
 * never another (an offered entry may be a bearer token).
 * @module
 */

/** The subprotocols an upgrade request offers (its `Sec-WebSocket-Protocol` entries, trimmed). */
export function offeredSubprotocols(request: Request): string[] {
  return (request.headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * The subprotocol an upgrade is answered with: `subprotocol` when the client
 * offers it; none (`undefined`) when it offers none, as RFC 6455 requires;
 * `false` when it offers only others, which this upgrade must not accept
 * (answering with none would fail the client's handshake, and an offered
 * entry is never echoed: it may be a bearer token).
 */
export function selectedSubprotocol(request: Request, subprotocol: string): string | undefined | false {
  if (request.headers.get("sec-websocket-protocol") === null) return undefined;
  return offeredSubprotocols(request).includes(subprotocol) ? subprotocol : false;
}

/** What an upgrader answers a client that offers subprotocols, none of them the application's. */
export function unsupportedSubprotocol(subprotocol: string): Response {
  return new Response(`WebSocket subprotocol ${subprotocol} must be offered, or none\n`, { status: 426, headers: { "sec-websocket-protocol": subprotocol } });
}
