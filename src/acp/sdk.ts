/**
 * The ACP SDK behind one module (the same idea as tools/mcp/sdk.ts for MCP).
 * The one place that imports `@agentclientprotocol/sdk`, so SDK upgrades
 * touch a single file. Other `src/acp/` files import from here.
 * @module
 */
export * as acp from "@agentclientprotocol/sdk";
export { RequestError, methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
export type * from "@agentclientprotocol/sdk";
export { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
