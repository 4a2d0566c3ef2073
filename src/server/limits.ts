/**
 * The bounds of `agent serve`, from settings with safe defaults. They are
 * reported by `GET /v1/capabilities`.
 * @module
 */
import type { Settings } from "../config/settings-schema.ts";

export interface ServeLimits {
  /** Largest inbound message; larger frames close the socket with 1009. */
  maxMessageBytes: number;
  /** Outbound bytes one client may leave unread before it alone is disconnected. */
  maxBufferedBytes: number;
  /** Keepalive ping interval; a ping unanswered by the next one closes the socket. 0 disables it. */
  pingIntervalMs: number;
  /** WebSocket connections at once (both routes). */
  maxConnections: number;
  /** Clients attached to one session through `/apc`. */
  maxClientsPerSession: number;
  /** Sessions with at least one `/apc` client. */
  maxAttachedSessions: number;
}

export function serveLimits(settings: Settings): ServeLimits {
  const s = settings.serve ?? {};
  return {
    maxMessageBytes: s.maxMessageBytes ?? 16 * 1024 * 1024,
    maxBufferedBytes: s.maxBufferedBytes ?? 64 * 1024 * 1024,
    pingIntervalMs: Math.round((s.pingIntervalSeconds ?? 30) * 1000),
    maxConnections: s.maxConnections ?? 64,
    maxClientsPerSession: s.maxClientsPerSession ?? 16,
    maxAttachedSessions: s.maxAttachedSessions ?? 32,
  };
}
