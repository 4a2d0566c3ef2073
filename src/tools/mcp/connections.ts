/**
 * All MCP servers of one session: started in parallel, their tools offered
 * under stable names, shut down together. Nothing here throws because a
 * server is broken; problems become notices for the user.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDefinition } from "../types.ts";
import { registerServerSecrets, type McpServerConfig } from "./config.ts";
import { McpConnection } from "./connection.ts";
import { serverKeys, toolNames } from "./names.ts";
import { mcpToolDefinition } from "./tool-adapter.ts";

export type { McpServerConfig } from "./config.ts";

/** The servers of a session and how patient to be with them. */
export interface McpConnectionsOptions {
  servers: McpServerConfig[];
  /** stdio servers start here. */
  cwd: string;
  /** Per server: connect + initialize + tools/list. Default 30 s. */
  startupTimeoutMs?: number;
  /** Per tool call; default none (calls end through their AbortSignal). */
  callTimeoutMs?: number;
  /** A stdio server that stopped is restarted on next use at most this many times. Default 3. */
  maxRestarts?: number;
  /** Sent to servers as our client version. */
  clientVersion?: string;
  /** Human-readable problems to show the user, e.g. 'MCP server "github" failed to start: …'. Never includes secrets. */
  onNotice(text: string): void;
}

/** Default per-server startup timeout. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
/** Default number of restarts of a server that stopped. */
export const DEFAULT_MAX_RESTARTS = 3;

interface Entry {
  connection: McpConnection;
  key: string;
  /** Definitions built for `connection.tools` (rebuilt when that list changes). */
  built?: { tools: Tool[]; definitions: ToolDefinition[] };
}

/** The MCP servers of one session. */
export class McpConnections {
  private readonly entries: Entry[];
  private started: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: McpConnectionsOptions) {
    for (const server of options.servers) registerServerSecrets(server);
    const keys = serverKeys(options.servers.map((server) => String(server.name ?? "")));
    this.entries = options.servers.map((config, index) => ({
      key: keys[index] as string,
      connection: new McpConnection({
        config,
        cwd: options.cwd,
        startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
        ...(options.callTimeoutMs !== undefined ? { callTimeoutMs: options.callTimeoutMs } : {}),
        maxRestarts: options.maxRestarts ?? DEFAULT_MAX_RESTARTS,
        clientVersion: options.clientVersion ?? "0.0.0",
        onNotice: (text) => options.onNotice(text),
      }),
    }));
  }

  /** Starts connecting to every server in parallel; returns at once. */
  start(): void {
    if (this.started || this.closing) return;
    this.started = Promise.all(this.entries.map((entry) => entry.connection.start())).then(() => {});
  }

  /** Resolves when every server has connected or failed, or after `timeoutMs` (whichever first). Never rejects. */
  async ready(timeoutMs?: number): Promise<void> {
    this.start();
    if (!this.started) return;
    if (timeoutMs === undefined) return this.started;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.started, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  /**
   * The tools of the servers connected so far (`mcp__<server>__<tool>`). A
   * server that stopped keeps its tools: calling one restarts it, or says why not.
   */
  tools(): ToolDefinition[] {
    if (this.closing) return [];
    const out: ToolDefinition[] = [];
    const taken = new Set<string>();
    for (const entry of this.entries) {
      for (const definition of this.definitions(entry)) {
        // Names are unique by construction; this only guards against a hash collision.
        if (taken.has(definition.name)) continue;
        taken.add(definition.name);
        out.push(definition);
      }
    }
    return out;
  }

  /** Shuts every server down; stdio servers' whole process trees are killed. Idempotent. */
  close(): Promise<void> {
    this.closing ??= Promise.allSettled(this.entries.map((entry) => entry.connection.close())).then(() => {});
    return this.closing;
  }

  private definitions(entry: Entry): ToolDefinition[] {
    const { connection } = entry;
    const tools = connection.tools;
    if (entry.built?.tools === tools) return entry.built.definitions;
    const names = toolNames(entry.key, tools.map((tool) => tool.name));
    const definitions = tools.map((tool, index) =>
      mcpToolDefinition(names[index] as string, {
        server: connection.name,
        tool,
        compile: (schema) => connection.compile(schema),
        call: (name, args, signal) => connection.callTool(name, args, signal),
      }),
    );
    // Same tool list, same objects: callers may cache per definition.
    entry.built = { tools, definitions };
    return definitions;
  }
}
