/**
 * Starting one language server's process and the JSON-RPC connection over its
 * stdin/stdout (`vscode-jsonrpc`). The process leads its own process group,
 * tracked like a background command's, with the same watchdog (it never
 * outlives the agent, however the agent ends: runtime/process/agent-watchdog.ts); under the sandbox when the session has one,
 * with the same confinement as a read-only command. Its stderr is read and dropped.
 * @module
 */
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node";
import { log } from "../runtime/log.ts";
import { quoteWord } from "../permissions/command-line.ts";
import { readableOf, writableOf } from "../runtime/process/node-streams.ts";
import { spawnProcess, type SpawnedProcess } from "../runtime/process/spawn-program.ts";
import { confinedCommand } from "../runtime/sandbox/confined-command.ts";
import type { SandboxSpec } from "../runtime/sandbox/sandbox-spec.ts";
import { guardFrames } from "./frame-guard.ts";
import { serverEnvironment } from "../tools/mcp/transports.ts";

/** A started server: its process and the connection to it (already listening). */
export interface ServerProcess {
  readonly process: SpawnedProcess;
  readonly connection: MessageConnection;
}

/** Starts `program args` in `cwd`, confined by `sandbox` when given. Rejects with a readable reason when it cannot start. */
export async function startServerProcess(program: string, args: readonly string[], cwd: string, sandbox: SandboxSpec | undefined): Promise<ServerProcess> {
  const command = sandbox
    ? await confinedCommand(sandbox, "/bin/sh", `exec ${[program, ...args].map(quoteWord).join(" ")}`)
    : [program, ...args];
  const [first, ...rest] = command as [string, ...string[]];
  const child = await spawnProcess({ command: first, args: rest, cwd, env: serverEnvironment({}), tiedToAgent: true });
  // Unread stderr would block the server once its pipe is full; what it says goes to the debug log.
  void drain(child.stderr, program);
  // A message beyond the bound ends the server: its reader would otherwise buffer whatever it announces.
  const input = readableOf(endOnBreach(guardFrames(child.stdout, MAX_SERVER_MESSAGE_BYTES), child));
  const output = writableOf((bytes) => child.write(bytes));
  const connection = createMessageConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
  connection.onError(() => {});
  return { process: child, connection };
}

/** The largest message a server may send (a report on a big file with every error in it fits many times). */
const MAX_SERVER_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The guarded output, ending the server's tree when the guard breaks it off. */
async function* endOnBreach(source: AsyncIterable<Uint8Array>, child: SpawnedProcess): AsyncGenerator<Uint8Array> {
  try {
    yield* source;
  } catch (error) {
    log.warn(`language server ended: ${error instanceof Error ? error.message : String(error)}`);
    child.killTree("SIGKILL");
  }
}

/** Bytes of a server's stderr logged at most: the rest is read and dropped. */
const MAX_LOGGED_BYTES = 64 * 1024;

async function drain(stream: AsyncIterable<Uint8Array>, program: string): Promise<void> {
  const decoder = new TextDecoder();
  let logged = 0;
  try {
    for await (const chunk of stream) {
      // Not the model's or the editor's business; the debug log keeps the start of it, redacted by the log.
      if (logged >= MAX_LOGGED_BYTES) continue;
      logged += chunk.length;
      log.debug(`language server ${program}: ${decoder.decode(chunk.subarray(0, MAX_LOGGED_BYTES)).trimEnd()}`);
    }
  } catch {
    // The process ended.
  }
}
