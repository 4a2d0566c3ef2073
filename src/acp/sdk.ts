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
