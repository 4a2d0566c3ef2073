/**
 * acp-edge: a coding agent for editors that speak the Agent Client Protocol.
 *
 * Run it with `deno run -A mod.ts agent stdio`, `bun mod.ts agent stdio`, or
 * the `acp-edge` binary. Embedders can serve the same agent from their own
 * server (every route: health, REST, `/acp` over WebSocket and HTTP, `/apc`):
 *
 * ```ts
 * import { createApp, createServices, serveLimits } from "acp-edge";
 * const services = await createServices({ noSession: false, allowRemote: false });
 * const edge = await createApp(services, { token, limits: serveLimits(services.config.settings) });
 * Bun.serve({ port: 8711, fetch: edge.fetch, websocket: edge.websocket }); // Deno: Deno.serve(edge.fetch)
 * ```
 * @module
 */
import { exitOnUncaughtError, reportDotenvUndo, runCli } from "./src/cli/main.ts";
import { undoBunDotenv } from "./src/runtime/host/bun-dotenv.ts";
import { commandArgs, exitProcess } from "./src/runtime/process/process.ts";
import { isMainModule } from "./src/runtime/host/main-module.ts";

export { runCli } from "./src/cli/main.ts";
export { runStdio } from "./src/cli/agent-stdio.ts";
export { buildServices as createServices } from "./src/cli/build-services.ts";
export { serveLimits } from "./src/server/limits.ts";
export { serveConnection } from "./src/acp/agent-app.ts";
export type { AgentServices, AgentOptions } from "./src/sessions/services.ts";
export type { CliOptions } from "./src/cli/options.ts";
export type { RunningServer, ServeOptions } from "./src/server/serve.ts";
export type { ServeLimits } from "./src/server/limits.ts";
export type { EdgeApp, EdgeAppOptions } from "./src/server/edge-app.ts";
export type { ServerKind } from "./src/runtime/websocket/websocket-types.ts";

import type { AgentServices } from "./src/sessions/services.ts";
import type { EdgeApp, EdgeAppOptions } from "./src/server/edge-app.ts";
import type { RunningServer, ServeOptions } from "./src/server/serve.ts";

// The HTTP stack loads only when asked for, so `mod.ts agent stdio` starts as fast as the binary.

/**
 * The whole server of `agent serve` as an embeddable app, with its own state:
 * `fetch` and the runtime's `websocket` piece for your server, `attach` (Node),
 * and `shutdown`.
 */
export async function createApp(services: AgentServices, options: EdgeAppOptions): Promise<EdgeApp> {
  return await (await import("./src/server/edge-app.ts")).createEdgeApp(services, options);
}

/** Listens for HTTP and WebSocket clients on the current runtime. */
export async function startServer(services: AgentServices, options: ServeOptions): Promise<RunningServer> {
  return await (await import("./src/server/serve.ts")).startServer(services, options);
}

if (isMainModule(import.meta)) {
  // What a project's .env made Bun set is undone before the command line reads the environment.
  const dotenv = await undoBunDotenv();
  exitOnUncaughtError();
  if (!reportDotenvUndo(dotenv)) exitProcess(2);
  exitProcess(await runCli(commandArgs()));
}
