/**
 * The ACP SDK behind one module (the same idea as tools/mcp/sdk.ts for MCP).
 * The one place that imports `@agentclientprotocol/sdk`, so SDK upgrades
 * touch a single file (and sdk-server.ts, the Streamable HTTP server, kept
 * apart so stdio start-up does not load it). Other `src/acp/` files import from here.
 * @module
 */
export * as acp from "@agentclientprotocol/sdk";
export { RequestError, methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
export type * from "@agentclientprotocol/sdk";
// The unstable methods acp-edge serves, typed by the SDK's unstable schema (types only: its entry point loads more code).
export type {
  AuthStatusResponse,
  AuthStatusUpdateNotification,
  ListProvidersResponse,
  ProviderInfo,
} from "@agentclientprotocol/sdk/unstable";

/** Names of the unstable methods acp-edge serves or sends (the stable `methods` table leaves them out). */
export const UNSTABLE_METHODS = {
  authStatus: "auth/status",
  authStatusUpdate: "auth/status_update",
  providersList: "providers/list",
  providersSet: "providers/set",
  providersDisable: "providers/disable",
} as const;

import * as sdk from "@agentclientprotocol/sdk";

/**
 * Builds the SDK's param schemas of `names` now rather than in the first
 * request that needs them. Only the dist build defers them (scripts/build.mjs,
 * which adds `__loadSchemas`); run from source they were built when the SDK loaded.
 */
export function prepareSchemas(names: readonly string[]): void {
  (sdk as { __loadSchemas?: (names: readonly string[]) => void }).__loadSchemas?.(names);
}

/** What a client sends right after `initialize`. */
export const SESSION_SCHEMAS = ["zNewSessionRequest", "zLoadSessionRequest", "zResumeSessionRequest"] as const;
/** What a client sends once a session is open. */
export const TURN_SCHEMAS = ["zPromptRequest", "zCancelNotification"] as const;
