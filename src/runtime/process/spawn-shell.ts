/**
 * Running a shell command as the leader of its own session and process
 * group, with stdout and stderr merged into one stream, its whole process
 * tree tracked (see process-tree.ts). `node:child_process` behaves the same
 * on Node, Bun and Deno for what is used here (detached = new session and
 * process group, negative-pid kill).
 * @module
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import process from "node:process";
import { exitOf, killChild, started, withMarker } from "./child-lifecycle.ts";
import { startAgentWatchdog, type AgentWatchdog } from "./agent-watchdog.ts";
import { mergedOutput } from "./merged-output.ts";
import { newTreeMarker, trackProcessTree, TREE_MARKER_VARIABLE, type ProcessTreeControl } from "./process-tree.ts";
import type { ShellExit } from "./child-lifecycle.ts";
import type { SandboxSpec } from "../sandbox/sandbox-spec.ts";

/** What to run and where. */
export interface SpawnShellOptions {
  command: string;
  cwd: string;
  /** The whole environment of the command; defaults to this process's. The tree marker is added to it. */
  env?: Record<string, string>;
  /** Absolute path of a POSIX shell; defaults to `defaultShell()`. */
  shell?: string;
  /**
   * Tie the command to this process: a watchdog out of the command's process group reads a pipe
   * from this process and ends the command's group and marked processes when the pipe closes, which
   * this process's death does even when it is SIGKILLed (for commands that run on after the call
   * that started them). See agent-watchdog.ts.
   */
  tiedToAgent?: boolean;
  /**
   * Run the shell confined (see runtime/sandbox/). The watchdog of a tied command stays outside the
   * sandbox and the command's group: ending the group ends the confined tree too.
   */
  sandbox?: SandboxSpec;
}

/** A running command. Its output must be read (or closed) or the command blocks once the pipe is full. */
export interface ShellProcess extends ProcessTreeControl {
  readonly pid: number;
  /** stdout and stderr merged, in the order the command wrote them; ends at EOF or `closeOutput()`. */
  readonly output: AsyncIterable<Uint8Array>;
  /** Settles when the shell itself has exited (what it started may live on until `terminate`). */
  readonly exited: Promise<ShellExit>;
  /** Stops reading: for children that keep the pipe open after the shell exited. Queued chunks are still delivered. */
  closeOutput(): void;
}

/**
 * A tied command waits for one line on its stdin before it runs, which this process writes once the
 * watchdog runs: a command never runs unwatched, and if this process dies before the line, the read
 * ends at end of file and the command never runs at all. The program to run is the script's arguments
 * (the shell, `-c` and the command, behind the sandbox's command line when confined).
 */
const GATED_SCRIPT = ["read -r _ || exit 1", "exec </dev/null", 'exec "$@" 2>&1'].join("\n");
const PLAIN_SCRIPT = 'exec "$@" 2>&1';

const SH_LIKE = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash"]);

/** Whether `shell` (a path) names a POSIX-style shell: the permission gate reads command lines as one would. */
export function isPosixShell(shell: string): boolean {
  return path.isAbsolute(shell) && SH_LIKE.has(path.basename(shell));
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let cachedShell: string | undefined;

/** `$SHELL` when it is a POSIX-style shell, else `/bin/bash` when present, else `/bin/sh`. */
export function defaultShell(): string {
  if (cachedShell) return cachedShell;
  const user = process.env.SHELL;
  if (user && isPosixShell(user) && isExecutable(user)) cachedShell = user;
  else cachedShell = isExecutable("/bin/bash") ? "/bin/bash" : "/bin/sh";
  return cachedShell;
}

/**
 * Starts `<shell> -c command` in `cwd`, leading its own process group, stdin closed.
 * Rejects when the process cannot start (missing cwd or shell).
 */
export async function spawnShell(options: SpawnShellOptions): Promise<ShellProcess> {
  const shell = options.shell ?? defaultShell();
  const marker = newTreeMarker();
  const tied = options.tiedToAgent === true;
  // The sandbox's code loads with the first confined command.
  const program = options.sandbox ? await (await import("../sandbox/confined-command.ts")).confinedCommand(options.sandbox, shell, options.command) : [shell, "-c", options.command];
  // /bin/sh points the shell's stderr at its stdout and execs it (same pid): one pipe keeps the exact write order.
  const child = spawn("/bin/sh", ["-c", tied ? GATED_SCRIPT : PLAIN_SCRIPT, "sh", ...program], {
    cwd: options.cwd,
    env: withMarker(options.env, TREE_MARKER_VARIABLE, marker),
    detached: true,
    // A tied command's stdin carries the one line that lets it run.
    stdio: [tied ? "pipe" : "ignore", "pipe", "pipe"],
  });
  const exited = exitOf(child);
  await started(child);
  // After a successful start an 'error' only means a failed kill; without a listener it would crash the process.
  child.on("error", () => {});
  // A gated command that already left (killed before its line) breaks the pipe; no one's business.
  child.stdin?.on("error", () => {});
  const pid = child.pid as number;
  const output = mergedOutput(child);
  const tree = trackProcessTree(pid, marker, exited, (signal) => killChild(child, signal));
  let watchdog: AgentWatchdog | undefined;
  if (tied) {
    try {
      watchdog = await startAgentWatchdog(pid, `${TREE_MARKER_VARIABLE}=${marker}`);
    } catch (error) {
      tree.killTree("SIGKILL");
      throw error;
    }
    child.stdin?.end("run\n");
  }
  return {
    pid,
    output: output.iterable,
    exited,
    ...tree,
    async terminate(graceMs) {
      await tree.terminate(graceMs);
      // The tree is ended: the watchdog would only signal a group id that may be given to someone else.
      watchdog?.dismiss();
    },
    closeOutput: output.close,
  };
}
