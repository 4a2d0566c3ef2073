/**
 * MCP server configurations as ACP's `session/new` passes them (`McpServer`),
 * mirrored here so that the tools layer does not depend on the ACP SDK.
 * @module
 */
import { registerSecret } from "../../runtime/secrets.ts";

/** A name/value pair: an environment variable or an HTTP header. */
export interface NameValue {
  name: string;
  value: string;
}

/** A server started as a child process and spoken to over its stdin/stdout. */
export interface McpStdioServerConfig {
  name: string;
  command: string;
  args: string[];
  env: NameValue[];
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  type: "http";
  name: string;
  url: string;
  headers: NameValue[];
}

/** A server reached over the (deprecated) HTTP+SSE transport. */
export interface McpSseServerConfig {
  type: "sse";
  name: string;
  url: string;
  headers: NameValue[];
}

/** One MCP server of a session, as ACP describes it. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig | McpSseServerConfig;

/** Whether the server is a child process (as opposed to a URL). */
export function isStdioServer(config: McpServerConfig): config is McpStdioServerConfig {
  // ACP leaves stdio untagged; some clients still send `type: "stdio"`.
  const type = (config as { type?: string }).type;
  return type === undefined || type === "stdio";
}

const SECRET_QUERY_PARAM = /key|token|secret|auth|pass|sig|session|code/i;

/**
 * Registers every value that may be a credential: all env values, all header
 * values, and a URL's password and credential-like query parameters.
 */
export function registerServerSecrets(config: McpServerConfig): void {
  if (isStdioServer(config)) {
    for (const variable of config.env ?? []) registerSecret(variable.value);
    return;
  }
  for (const header of config.headers ?? []) {
    registerSecret(header.value);
    // "Bearer <token>": the token may show up on its own (a server echoing it, an error message).
    const credential = /^\s*(?:bearer|basic|token)\s+(\S+)\s*$/i.exec(header.value)?.[1];
    registerSecret(credential);
  }
  try {
    const url = new URL(config.url);
    registerSecret(decodeURIComponent(url.password));
    for (const [name, value] of url.searchParams) if (SECRET_QUERY_PARAM.test(name)) registerSecret(value);
  } catch {
    // An invalid URL fails when connecting; there is nothing to register.
  }
}
