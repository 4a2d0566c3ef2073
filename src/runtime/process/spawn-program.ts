/**
 * Running a program directly (no shell) with its three pipes, as the leader
 * of its own session and process group, its whole process tree tracked
 * (see process-tree.ts): MCP servers over stdio.
 * @module
 */
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import { startAgentWatchdog, type AgentWatchdog } from "./agent-watchdog.ts";
import { exitOf, killChild, started, withMarker, type ShellExit } from "./child-lifecycle.ts";
import { newTreeMarker, trackProcessTree, TREE_MARKER_VARIABLE, type ProcessTreeControl } from "./process-tree.ts";

/** A program to run directly (no shell), with its arguments, directory and environment. */
export interface SpawnProcessOptions {
  /** An absolute path, or a name looked up on the `PATH` of `env`. */
  command: string;
  args: string[];
  cwd: string;
  /** The whole environment of the program; defaults to this process's. The tree marker is added to it. */
  env?: Record<string, string>;
  /** Ends the program's tree even when the agent dies without a word (SIGKILL): a watchdog as background commands have (agent-watchdog.ts). */
  tiedToAgent?: boolean;
}

/** A running program with its three pipes. Both output streams must be read, or the program blocks once a pipe is full. */
export interface SpawnedProcess extends ProcessTreeControl {
  readonly pid: number;
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array>;
  /** Settles when the program itself has exited (what it started may live on until `terminate`). */
  readonly exited: Promise<ShellExit>;
  /** Writes to stdin; resolves once the bytes are handed to the pipe, rejects when stdin is closed. */
  write(bytes: Uint8Array): Promise<void>;
  closeStdin(): void;
}

/**
 * Starts a program as the leader of its own process group, so that
 * `terminate` reaches everything it starts. Rejects with a readable message
 * when it cannot start (command not found, not executable, missing cwd).
 */
export async function spawnProcess(options: SpawnProcessOptions): Promise<SpawnedProcess> {
  const marker = newTreeMarker();
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: withMarker(options.env, TREE_MARKER_VARIABLE, marker),
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = exitOf(child);
  try {
    await started(child);
  } catch (error) {
    throw new Error(await spawnFailure(error, options));
  }
  child.on("error", () => {});
  // Writing to a program that has exited raises EPIPE on the stream; `write` reports it instead.
  child.stdin?.on("error", () => {});
  const pid = child.pid as number;
  const tree = trackProcessTree(pid, marker, exited, (signal) => killChild(child, signal));
  let watchdog: AgentWatchdog | undefined;
  if (options.tiedToAgent) {
    try {
      watchdog = await startAgentWatchdog(pid, `${TREE_MARKER_VARIABLE}=${marker}`);
    } catch (error) {
      tree.killTree("SIGKILL");
      throw error;
    }
  }
  return {
    pid,
    stdout: child.stdout as AsyncIterable<Uint8Array>,
    stderr: child.stderr as AsyncIterable<Uint8Array>,
    exited,
    write(bytes) {
      const stdin = child.stdin;
      return new Promise<void>((resolve, reject) => {
        if (!stdin || stdin.destroyed || stdin.writableEnded) {
          reject(new Error("stdin is closed"));
          return;
        }
        stdin.write(bytes, (error) => (error ? reject(error) : resolve()));
      });
    },
    closeStdin() {
      child.stdin?.end();
    },
    ...tree,
    async terminate(graceMs) {
      await tree.terminate(graceMs);
      // The tree is ended: the watchdog would only signal a group id that may be given to someone else.
      watchdog?.dismiss();
    },
  };
}

async function spawnFailure(error: unknown, options: SpawnProcessOptions): Promise<string> {
  const code = (error as { code?: string }).code;
  if (code === "ENOENT") {
    const cwd = await fs.stat(options.cwd).catch(() => undefined);
    if (!cwd?.isDirectory()) return `working directory not found: ${options.cwd}`;
    return `command not found: ${options.command}`;
  }
  if (code === "EACCES") return `permission denied: ${options.command}`;
  return error instanceof Error ? error.message : String(error);
}
