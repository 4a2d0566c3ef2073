/**
 * A session's language-server concern as one handle: its servers, the step
 * that reports on edits, the `diagnostics` tool once a server runs, and the
 * close that stops them. Loaded the first time the session changes a file.
 * @module
 */
import type { CallStep } from "../engine/call-steps.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { createDiagnosticsTool } from "./diagnostics-tool.ts";
import { diagnosticsStep } from "./diagnostics-step.ts";
import { SessionServers, type ServerHost } from "./session-servers.ts";

/** What the session holds of its language servers. */
export interface LanguageServers {
  readonly step: CallStep;
  /** `diagnostics` once a server has started; none before. */
  tools(): ToolDefinition[];
  /** Process ids of the running servers. */
  pids(): Promise<number[]>;
  close(): Promise<void>;
}

/** The handle for a session whose host is `host`; `started` runs when a server first starts (after `host.serverStarted`). */
export function languageServers(host: ServerHost): LanguageServers {
  let tool: ToolDefinition | undefined;
  const servers: SessionServers = new SessionServers({
    ...host,
    serverStarted() {
      if (tool) return;
      tool = createDiagnosticsTool(servers);
      host.serverStarted();
    },
  });
  return {
    step: diagnosticsStep(servers),
    tools: () => (tool ? [tool] : []),
    pids: () => servers.pids(),
    close: () => servers.close(),
  };
}
