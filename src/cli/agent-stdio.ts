/**
 * `acp-edge agent stdio`: one ACP connection on stdin/stdout. When stdin
 * ends the running turns are cancelled, pending output is flushed and the
 * process exits 0; a broken frame header ends it with a message on stderr.
 * @module
 */
import { log, printError } from "../runtime/log.ts";
import { exitProcess, onSignal } from "../runtime/process/process.ts";
import { openStdioMessageStream } from "../transport/stdio-stream.ts";
import type { CliOptions } from "./options.ts";
import { buildServices } from "./build-services.ts";
import { terminalLoginFor } from "./terminal-login.ts";

/** Serves ACP over stdio until the client goes away; resolves with the exit code. */
export async function runStdio(options: CliOptions): Promise<number> {
  // The protocol stack compiles while the settings files are read.
  const [services, { serveConnection }] = await Promise.all([buildServices(options), import("../acp/agent-app.ts")]);
  services.terminalLogin = terminalLoginFor(options);
  const stream = openStdioMessageStream();
  // A terminated agent ends as at the end of its input: running turns are answered `cancelled`, those
  // answers are written out, journals flushed and their locks freed. A second signal stops waiting for answers.
  let stopping = false;
  const stopOn = (signal: "SIGINT" | "SIGTERM") =>
    onSignal(signal, () => {
      if (!stopping) {
        stopping = true;
        stream.endInput();
        return;
      }
      // Still flushed and unlocked, but SessionEnd hooks are no longer waited for.
      void services.sessions.releaseAll(true).finally(() => exitProcess(0));
    });
  const removeHandlers = [stopOn("SIGINT"), stopOn("SIGTERM")];
  const served = serveConnection(services, stream);
  const end = await stream.closed;
  await served;
  await services.sessions.releaseAll();
  for (const remove of removeHandlers) remove();
  await stream.writable.close().catch(() => undefined);
  if (end.reason === "fatal") {
    printError(`acp-edge: ${end.message}; closing the connection`);
    return 1;
  }
  if (end.reason === "error") log.warn("stdin failed", end.error);
  return 0;
}

export { runStdio as runAgentStdio };
