/**
 * The ACP SDK's server for ACP over Streamable HTTP, at the same level as
 * sdk.ts but apart from it: only `agent serve` needs the server, so stdio
 * start-up does not compile it.
 * @module
 */
export { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
