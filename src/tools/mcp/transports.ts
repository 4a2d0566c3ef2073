/**
 * The MCP transport for a server configuration: a process group for stdio
 * servers, Streamable HTTP or HTTP+SSE for URLs, with the configured env or headers.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { envSnapshot } from "../../runtime/process/process.ts";
import { isStdioServer, type McpServerConfig } from "./config.ts";
import type { ProcessTransport } from "./stdio-transport.ts";

type Sdk = typeof import("./sdk.ts");

/** Variables a stdio server inherits from us (as the MCP SDK does, plus locale, temp dir and proxies); our own keys stay private. */
const INHERITED_ENV = [
  "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
  "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
];

/** The child's environment: the inherited basics, then the server's own variables. */
export function serverEnvironment(config: { env?: Array<{ name: string; value: string }> }): Record<string, string> {
  const inherited = envSnapshot();
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = inherited[name];
    // Exported shell functions look like "() { …": never pass them on.
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  for (const variable of config.env ?? []) env[variable.name] = variable.value;
  return env;
}

/**
 * A new, unstarted transport; throws for an unusable configuration (bad URL, unknown type).
 * `fetch` is what HTTP transports send with (runtime/fetch/platform-fetch.ts); `undefined` means the global one.
 */
export function createTransport(
  sdk: Sdk,
  config: McpServerConfig,
  cwd: string,
  fetch?: typeof globalThis.fetch,
): { transport: Transport; process?: ProcessTransport } {
  if (isStdioServer(config)) {
    const env = serverEnvironment(config);
    const child = new sdk.ProcessTransport({ server: config.name, command: config.command, args: config.args ?? [], cwd, env });
    return { transport: child, process: child };
  }
  const type = (config as { type?: string }).type;
  if (type !== "http" && type !== "sse") throw new Error(`unsupported transport "${type}"`);
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new Error("invalid URL");
  }
  const headers: Record<string, string> = {};
  for (const header of config.headers ?? []) headers[header.name] = header.value;
  const options = { requestInit: { headers }, ...(fetch ? { fetch } : {}) };
  return { transport: type === "http" ? new sdk.StreamableHTTPClientTransport(url, options) : new sdk.SSEClientTransport(url, options) };
}
