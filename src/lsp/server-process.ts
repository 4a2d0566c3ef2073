/**
 * Starting one language server's process and the JSON-RPC connection over its
 * stdin/stdout (`vscode-jsonrpc`). The process leads its own process group,
 * tracked like a command's (it never outlives the agent, see
 * runtime/process/process-tree.ts); under the sandbox when the session has one,
 * with the same confinement as a read-only command. Its stderr is read and dropped.
 * @module
 */
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node";
import { quoteWord } from "../permissions/command-line.ts";
import { readableOf, writableOf } from "../runtime/process/node-streams.ts";
import { spawnProcess, type SpawnedProcess } from "../runtime/process/spawn-program.ts";
import { confinedCommand } from "../runtime/sandbox/confined-command.ts";
import type { SandboxSpec } from "../runtime/sandbox/sandbox-spec.ts";
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
  const child = await spawnProcess({ command: first, args: rest, cwd, env: serverEnvironment({}) });
  // Unread stderr would block the server once its pipe is full.
  void drain(child.stderr);
  const input = readableOf(child.stdout);
  const output = writableOf((bytes) => child.write(bytes));
  const connection = createMessageConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
  connection.onError(() => {});
  return { process: child, connection };
}

async function drain(stream: AsyncIterable<Uint8Array>): Promise<void> {
  try {
    for await (const _ of stream) {
      // Dropped: a server's log is not the model's or the editor's business.
    }
  } catch {
    // The process ended.
  }
}
