/**
 * The MCP SDK behind one module (the same idea as acp/sdk.ts for ACP).
 * The MCP SDK parts a connection needs, gathered in one module that is only
 * ever loaded with `import()`: the SDK takes 150–300 ms to load, which
 * sessions without MCP servers should not pay.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client"
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
// ajv through the SDK: a declared dependency, so it resolves the same way on Node, Bun and Deno.
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
export { ProcessTransport } from "./stdio-transport.ts";
