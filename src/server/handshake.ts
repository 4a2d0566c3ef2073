/**
 * Deciding a WebSocket upgrade, checks in this order: where it comes from
 * (403: `Host` on loopback binds, `Origin`) → bearer (401, with
 * `WWW-Authenticate: Bearer`) → route and session (404) → the
 * `agent-client-protocol.v1` subprotocol offered (426) → `?generation=`
 * current (409) → a GET (405) → capacity (503). Nothing is revealed about sessions to a
 * request without the token.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { selectedSubprotocol } from "../runtime/websocket/websocket-offer.ts";
import type { WebSocketUpgrader } from "../runtime/websocket/websocket-types.ts";
import type { SessionStore } from "../store/types.ts";
import { isAuthorizedUpgrade, SUBPROTOCOL } from "./bearer.ts";
import { jsonError, unauthorized } from "./http-errors.ts";
import type { ServeLimits } from "./limits.ts";
import { sourceRefusal, type RequestSourcePolicy } from "./request-source.ts";
import type { ServerState } from "./server-state.ts";
import { generationOf, resolveSessionHome } from "./session-refs.ts";

/** The outcome of the checks: the route to serve, or the refusal to send. */
export type UpgradeDecision = { accept: true; route: SocketRoute; opened: () => void } | { accept: false; response: Response };

/** What an accepted connection serves: a plain ACP connection, or one scoped to a durable session. */
export type SocketRoute = { kind: "acp" } | { kind: "apc"; sessionId: string; cwd: string };

/** What the checks look at. */
export interface HandshakeContext {
  token: string;
  store: SessionStore;
  limits: ServeLimits;
  state: ServerState;
  source: RequestSourcePolicy;
}

const APC_PATH = /^\/v1\/session\/([^/]+)\/apc$/;

/** Whether a request asks for a WebSocket. */
export function isUpgradeRequest(request: Request): boolean {
  return request.headers.get("upgrade")?.toLowerCase() === "websocket";
}

/** Runs every check on an upgrade request, in the contract's order. */
export async function decideUpgrade(request: Request, context: HandshakeContext): Promise<UpgradeDecision> {
  const refuse = (status: number, code: string, message: string, headers?: Record<string, string>) =>
    ({ accept: false, response: jsonError(status, code, message, headers) }) as const;

  const misdirected = sourceRefusal(request, context.source);
  if (misdirected) return { accept: false, response: misdirected };
  if (!isAuthorizedUpgrade(request, context.token)) return { accept: false, response: unauthorized() };
  const url = new URL(request.url);
  let route: SocketRoute;
  let generation: number | undefined;
  const apc = APC_PATH.exec(url.pathname);
  if (url.pathname === "/acp") {
    route = { kind: "acp" };
  } else if (apc) {
    let ref: string;
    try {
      ref = decodeURIComponent(apc[1]!);
    } catch {
      return refuse(404, "session_not_found", "session not found");
    }
    const resolved = await resolveSessionHome(context.store, ref);
    if (!resolved.ok) return refuse(404, resolved.code, resolved.message);
    route = { kind: "apc", sessionId: resolved.id, cwd: resolved.cwd };
    generation = await generationOf(resolved.id);
  } else {
    return refuse(404, "route_not_found", "no WebSocket route here; use /acp or /v1/session/{ref}/apc");
  }

  // No subprotocol offered: served without one (the remote-transport RFD names none). Offered: the answer must
  // name one of them, and ours is the only one it may (never a token entry), so ours must be among them.
  if (selectedSubprotocol(request, SUBPROTOCOL) === false) {
    return refuse(426, "acp_subprotocol_required", `offer the WebSocket subprotocol ${SUBPROTOCOL}, or no subprotocol`, { "sec-websocket-protocol": SUBPROTOCOL });
  }

  const wanted = url.searchParams.get("generation");
  if (wanted !== null && route.kind === "apc") {
    if (!/^\d{1,16}$/.test(wanted)) return refuse(409, "stale_generation", "generation is not a number");
    if (Number(wanted) !== generation) return refuse(409, "stale_generation", "session generation changed: the session was deleted or replaced");
  }

  // Only a GET can become a WebSocket; anything else would hold a place for a socket that never opens.
  if (request.method !== "GET") return refuse(405, "method_not_allowed", "a WebSocket upgrade is a GET request", { allow: "GET" });

  const { state, limits } = context;
  if (state.draining) return refuse(503, "server_stopping", "the server is shutting down");
  if (route.kind === "apc") {
    if (state.clientsOf(route.sessionId) >= limits.maxClientsPerSession) {
      return refuse(503, "session_client_capacity", `this session already has ${limits.maxClientsPerSession} clients`, { "retry-after": "5" });
    }
    const attached = state.attachedSessions();
    if (!attached.has(route.sessionId) && attached.size >= limits.maxAttachedSessions) {
      return refuse(503, "attached_session_capacity", `clients are attached to ${limits.maxAttachedSessions} sessions already`, { "retry-after": "5" });
    }
  }
  // Last, because making room may close an idle HTTP connection: only for a client that is otherwise let in.
  const full = state.admit(limits);
  if (full) return { accept: false, response: full };
  // Counted from here, not from when the socket opens: the next handshake may be decided before that.
  const opened = state.reserve(route.kind === "apc" ? route.sessionId : undefined);
  return { accept: true, route, opened };
}

/**
 * Variables the handshake leaves for the WebSocket routes: the decided route,
 * and the call that gives back the place held for it (once its socket is
 * counted as a connection, or the upgrade was abandoned).
 */
export type HandshakeVariables = { socketRoute: SocketRoute; releasePlace: () => void };

/**
 * The handshake as one middleware: every upgrade request, whatever its path,
 * is checked here; a refusal is answered (through the runtime's upgrader, so
 * status, headers and body all reach the client), an accepted one goes on to
 * its route with the decided `socketRoute`. Other requests pass untouched.
 */
export function handshake(context: HandshakeContext, upgrader: WebSocketUpgrader): MiddlewareHandler<{ Variables: HandshakeVariables }> {
  return async (c, next) => {
    if (!isUpgradeRequest(c.req.raw)) return await next();
    const decision = await decideUpgrade(c.req.raw, context);
    if (!decision.accept) return upgrader.refuse(c, decision.response);
    c.set("socketRoute", decision.route);
    c.set("releasePlace", decision.opened);
    try {
      await next();
    } catch (error) {
      decision.opened();
      throw error;
    }
    // No socket opens for an upgrade no route took (404), or one the runtime refused: not a WebSocket
    // handshake after all, a bad key or version, the client gone before it could be upgraded.
    if (c.res.status >= 400) decision.opened();
  };
}
