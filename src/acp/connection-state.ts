/**
 * What acp-edge remembers about one client connection.
 * @module
 */
import type { ClientCapabilities } from "./sdk.ts";

export interface ConnectionState {
  /** Captured at `initialize`; an omitted capability means unsupported. */
  clientCapabilities: ClientCapabilities;
  /** Cleared by `logout`; `authenticate` sets it again. Connections start authenticated. */
  authenticated: boolean;
  /** Sessions opened on this connection, cancelled when it closes. */
  sessions: Set<string>;
}

export function newConnectionState(): ConnectionState {
  return { clientCapabilities: {}, authenticated: true, sessions: new Set() };
}
