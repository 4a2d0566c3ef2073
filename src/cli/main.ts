/**
 * The `acp-edge` command: parse, dispatch, and turn failures into a one-line
 * reason with the right exit code (2 for usage errors).
 * @module
 */
import { ConfigError } from "../config/settings.ts";
import { PACKAGE_VERSION } from "../config/version.ts";
import type { DotenvUndo } from "../runtime/host/bun-dotenv.ts";
import { log, logLevel, printError, printOut, setLogLevel } from "../runtime/log.ts";
import { exitProcess, onUncaughtError } from "../runtime/process/process.ts";
import { parseCommandLine, UsageError } from "./options.ts";

/**
 * For the executable only: an error nothing caught ends the process as the
 * runtime would (exit code 1), but its message is redacted like every other
 * line on stderr instead of being printed raw by the runtime.
 */
export function exitOnUncaughtError(): void {
  onUncaughtError((error) => {
    const detail = error instanceof Error ? (logLevel() === "debug" && error.stack ? error.stack : error.message) : String(error);
    printError(`acp-edge: unexpected error: ${detail}`);
    exitProcess(1);
  });
}

/**
 * Says which variables a project's `.env` set under Bun and were undone
 * (names only: values may be secrets). False when a file could not be read
 * to undo it: the agent must not start with variables it cannot name.
 */
export function reportDotenvUndo(undo: DotenvUndo): boolean {
  if (undo.unread) {
    printError(
      `acp-edge: ${undo.unread.join(", ")}: too large to find the variables Bun loaded from it, so they cannot be undone; ` +
        "start acp-edge from another folder, or on Node or Deno",
    );
    return false;
  }
  const names = [...undo.removed, ...undo.restored];
  if (names.length === 0) return true;
  log.warn(
    `ignored ${names.join(", ")}: set by a .env file in the folder the agent started in ` +
      `(Bun loads them; acp-edge never does${undo.exact ? "" : ", so every variable they name is removed"}). Set them in the environment instead.`,
  );
  return true;
}

/** Runs the command line and resolves with the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      // Internal, not a command people type (never in --help): the sandbox's network forwarder when the
      // executable is acp-edge itself. Looked for only here, so no start-up loads it.
      const forwarder = await import("../runtime/sandbox/network/forwarder.ts");
      if (argv[0] === forwarder.FORWARDER_COMMAND) {
        await forwarder.runForwarderCommand();
        return 0;
      }
      printError(`acp-edge: ${error.message} (see acp-edge --help)`);
      return 2;
    }
    throw error;
  }
  const { command, options } = parsed;
  if (options.logLevel) setLogLevel(options.logLevel);
  try {
    switch (command) {
      case "help":
        // The text is loaded only to be shown: the agent's own start never needs it.
        printOut((await import("./help.ts")).HELP);
        return 0;
      case "version":
        printOut(`acp-edge ${PACKAGE_VERSION}\n`);
        return 0;
      case "models": {
        const [{ buildServices }, { runModelsCommand }] = await Promise.all([import("./build-services.ts"), import("./models-command.ts")]);
        return await runModelsCommand(await buildServices(options), options.all === true);
      }
      case "demo":
        return await (await import("./demo.ts")).runDemo(options);
      case "agent stdio":
        return await (await import("./agent-stdio.ts")).runAgentStdio(options);
      case "agent serve":
        return await (await import("./agent-serve.ts")).runServe(options);
      case "login":
        return await (await import("./login-command.ts")).runLogin(options);
      case "logout":
        return await (await import("./logout-command.ts")).runLogout(options);
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      printError(`acp-edge: ${error.message}`);
      return 2;
    }
    printError(`acp-edge: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
