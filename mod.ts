/**
 * acp-edge: a coding agent for editors that speak the Agent Client Protocol.
 *
 * Run it with `deno run -A mod.ts agent stdio`, `bun mod.ts agent stdio`, or
 * the `acp-edge` binary. Embedders can build the same agent in-process:
 *
 * ```ts
 * import { createServices, startServer } from "acp-edge";
 * const services = await createServices({ noSession: false, allowRemote: false });
 * const server = await startServer(services, { hostname: "127.0.0.1", port: 0, token, limits });
 * ```
 * @module
 */
import { exitOnUncaughtError, runCli } from "./src/cli/main.ts";
import { commandArgs, exitProcess } from "./src/runtime/process.ts";
import { isMainModule } from "./src/runtime/main-module.ts";

export { runCli } from "./src/cli/main.ts";
export { runStdio } from "./src/cli/agent-stdio.ts";
export { buildServices as createServices } from "./src/cli/services.ts";
export { serveLimits } from "./src/server/limits.ts";
export { serveConnection } from "./src/acp/agent-app.ts";
export type { AgentServices, AgentOptions } from "./src/acp/services.ts";
export type { CliOptions } from "./src/cli/options.ts";
export type { RunningServer, ServeOptions } from "./src/server/serve.ts";
export type { ServeLimits } from "./src/server/limits.ts";
export type { ServerAppOptions } from "./src/server/app.ts";

import type { AgentServices } from "./src/acp/services.ts";
import type { ServerAppOptions } from "./src/server/app.ts";
import type { RunningServer, ServeOptions } from "./src/server/serve.ts";

// The HTTP stack loads only when asked for, so `mod.ts agent stdio` starts as fast as the binary.

/** The Hono app of `agent serve` (health, readiness, capabilities, sessions REST). */
export async function createApp(options: ServerAppOptions): Promise<import("hono").Hono> {
  return (await import("./src/server/app.ts")).createServerApp(options);
}

/** Listens for HTTP and WebSocket clients on the current runtime. */
export async function startServer(services: AgentServices, options: ServeOptions): Promise<RunningServer> {
  return await (await import("./src/server/serve.ts")).startServer(services, options);
}

if (isMainModule(import.meta)) {
  exitOnUncaughtError();
  exitProcess(await runCli(commandArgs()));
}
