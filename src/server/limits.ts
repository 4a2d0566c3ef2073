/**
 * The bounds of `agent serve`, from settings with safe defaults. They are
 * reported by `GET /v1/capabilities`.
 * @module
 */
import type { Settings } from "../config/settings-schema.ts";

/**
 * The largest body of a REST request (`POST /v1/sessions`): a cwd, a title of at most 200 characters and
 * additional directories — a dozen paths of the longest length Linux allows (4,096 bytes) fit in it, ordinary
 * paths by the hundred. Not a setting: nothing legitimate comes near it.
 */
export const MAX_REST_BODY_BYTES = 64 * 1024;

export interface ServeLimits {
  /** Largest inbound message; larger frames close the socket with 1009. */
  maxMessageBytes: number;
  /** Outbound bytes one client may leave unread before it alone is disconnected. */
  maxBufferedBytes: number;
  /** Keepalive ping interval; a ping unanswered by the next one closes the socket. 0 disables it. */
  pingIntervalMs: number;
  /** Connections at once: WebSockets (both routes) and Streamable HTTP connections together. */
  maxConnections: number;
  /** Clients attached to one session through `/apc`. */
  maxClientsPerSession: number;
  /** Sessions with at least one `/apc` client. */
  maxAttachedSessions: number;
  /** A Streamable HTTP connection with no open stream, no request under way and no running turn is closed after this. */
  httpIdleTimeoutMs: number;
  /** When the server is full, a Streamable HTTP connection idle at least this long may be closed for a new client. */
  httpIdleEvictMs: number;
  /** Largest REST request body. */
  maxRestBodyBytes: number;
}

/** The bounds `settings.json` asks for, with defaults for the rest. */
export function serveLimits(settings: Settings): ServeLimits {
  const s = settings.serve ?? {};
  return {
    maxMessageBytes: s.maxMessageBytes ?? 16 * 1024 * 1024,
    maxBufferedBytes: s.maxBufferedBytes ?? 64 * 1024 * 1024,
    pingIntervalMs: Math.round((s.pingIntervalSeconds ?? 30) * 1000),
    maxConnections: s.maxConnections ?? 64,
    maxClientsPerSession: s.maxClientsPerSession ?? 16,
    maxAttachedSessions: s.maxAttachedSessions ?? 32,
    httpIdleTimeoutMs: Math.round((s.httpIdleTimeoutSeconds ?? 300) * 1000),
    httpIdleEvictMs: Math.round((s.httpIdleEvictSeconds ?? 10) * 1000),
    maxRestBodyBytes: MAX_REST_BODY_BYTES,
  };
}
