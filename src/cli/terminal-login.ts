/**
 * What a client needs to run this agent's login in a terminal: the command
 * line that started it, and the home folder when it is not the default one
 * (a client that replaces the agent's arguments and environment with the
 * method's own would otherwise log in to `~/.acp-edge`).
 * @module
 */
import { resolveHome } from "../config/home.ts";
import { env } from "../runtime/process/process.ts";
import { ownInvocation } from "../runtime/host/own-invocation.ts";
import type { TerminalLogin } from "../sessions/services.ts";
import type { CliOptions } from "./options.ts";

/** The terminal login of an agent started with `options`. */
export function terminalLoginFor(options: CliOptions): TerminalLogin {
  const chosenHome = options.home !== undefined || env("ACP_EDGE_HOME") !== undefined;
  return { invocation: ownInvocation(), ...(chosenHome ? { env: { ACP_EDGE_HOME: resolveHome(options.home) } } : {}) };
}
