/**
 * acp-edge: a coding agent for editors that speak the Agent Client Protocol.
 *
 * Run it with `deno run -A mod.ts agent stdio`, `bun mod.ts agent stdio`, or
 * the `acp-edge` binary. Embedders can build the same agent in-process.
 * @module
 */
import { runCli } from "./src/cli/main.ts";
import { commandArgs, exitProcess } from "./src/runtime/process.ts";
import { isMainModule } from "./src/runtime/main-module.ts";

export { runCli } from "./src/cli/main.ts";
export { runStdio } from "./src/cli/agent-stdio.ts";
export { buildServices as createServices } from "./src/cli/services.ts";
export type { AgentServices, AgentOptions } from "./src/acp/services.ts";
export type { CliOptions } from "./src/cli/options.ts";

if (isMainModule(import.meta)) exitProcess(await runCli(commandArgs()));
