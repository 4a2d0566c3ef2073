/**
 * The MCP servers a client passes with a session: connected in parallel
 * without holding up the response, their tools added to the session's tool
 * set as they come, problems told to the user as notices, and everything
 * shut down with the session.
 * @module
 */
import { McpConnections, type McpServerConfig } from "../tools/mcp/connections.ts";
import { PACKAGE_VERSION } from "../config/version.ts";
import { noticeToSession } from "./session-broadcast.ts";
import type { LiveSession } from "./live-session.ts";
import { sessionTools } from "./session-tools.ts";

const DEFAULT_STARTUP_SECONDS = 30;

/** Starts the session's MCP servers (replacing any it had). Returns at once. */
export async function connectMcpServers(live: LiveSession, servers: readonly unknown[] | undefined): Promise<void> {
  await live.replaceMcp(undefined);
  if (!servers || servers.length === 0) return;
  const seconds = live.settings.mcp?.startupTimeoutSeconds ?? DEFAULT_STARTUP_SECONDS;
  const mcp = new McpConnections({
    servers: servers as McpServerConfig[],
    cwd: live.cwd,
    startupTimeoutMs: seconds * 1000,
    clientVersion: PACKAGE_VERSION,
    onNotice: (text) => noticeToSession(live, text),
  });
  await live.replaceMcp(mcp);
  mcp.start();
}

/**
 * Before a turn: waits (bounded by the start-up timeout) for servers still
 * starting, then offers the session's tools with every MCP tool available now.
 */
export async function refreshTools(live: LiveSession): Promise<void> {
  const mcp = live.mcp;
  if (!mcp) return;
  await mcp.ready((live.settings.mcp?.startupTimeoutSeconds ?? DEFAULT_STARTUP_SECONDS) * 1000);
  live.offerTools(sessionTools(live));
}
