/**
 * Running a shell command as its own process group, with stdout and stderr
 * merged into one stream, and a temp file for output too big to keep.
 * `node:child_process` behaves the same on Node, Bun and Deno for what is
 * used here (detached = new session and process group, negative-pid kill).
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import process from "node:process";

/** What to run and where. */
export interface SpawnShellOptions {
  command: string;
  cwd: string;
  /** The whole environment of the command; defaults to this process's. */
  env?: Record<string, string>;
  /** Absolute path of a POSIX shell; defaults to `defaultShell()`. */
  shell?: string;
}

/** How the shell ended: a code, or the signal that killed it. */
export interface ShellExit {
  code: number | null;
  signal: string | null;
}

/** Signals `killTree` sends. */
export type KillSignal = "SIGTERM" | "SIGKILL";

/** A running command. Its output must be read (or closed) or the command blocks once the pipe is full. */
export interface ShellProcess {
  readonly pid: number;
  /** stdout and stderr merged, in the order the command wrote them; ends at EOF or `closeOutput()`. */
  readonly output: AsyncIterable<Uint8Array>;
  /** Settles when the shell itself has exited (its children may live on). */
  readonly exited: Promise<ShellExit>;
  /** Signals the whole process group; falls back to the shell alone. */
  killTree(signal?: KillSignal): void;
  /** Whether any process of the group still exists (zombies included). */
  treeAlive(): boolean;
  /** Stops reading: for children that keep the pipe open after the shell exited. Queued chunks are still delivered. */
  closeOutput(): void;
}

const SH_LIKE = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash"]);

/** Whether `shell` (a path) names a POSIX-style shell: the permission gate reads command lines as one would. */
export function isPosixShell(shell: string): boolean {
  return path.isAbsolute(shell) && SH_LIKE.has(path.basename(shell));
}
/** Reading pauses while this much output waits for the consumer, so a slow consumer blocks the command, not memory. */
const QUEUE_HIGH_WATER = 256 * 1024;
const QUEUE_LOW_WATER = 64 * 1024;

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
  if (user && path.isAbsolute(user) && SH_LIKE.has(path.basename(user)) && isExecutable(user)) cachedShell = user;
  else cachedShell = isExecutable("/bin/bash") ? "/bin/bash" : "/bin/sh";
  return cachedShell;
}

/**
 * Starts `<shell> -c command` in `cwd`, leading its own process group, stdin closed.
 * Rejects when the process cannot start (missing cwd or shell).
 */
export async function spawnShell(options: SpawnShellOptions): Promise<ShellProcess> {
  const shell = options.shell ?? defaultShell();
  // /bin/sh points the shell's stderr at its stdout and execs it (same pid): one pipe keeps the exact write order.
  const child = spawn("/bin/sh", ["-c", 'exec "$0" -c "$1" 2>&1', shell, options.command], {
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = exitOf(child);
  await started(child);
  // After a successful start an 'error' only means a failed kill; without a listener it would crash the process.
  child.on("error", () => {});
  const pid = child.pid as number;
  const output = mergedOutput(child);
  return {
    pid,
    output: output.iterable,
    exited,
    killTree: (signal = "SIGTERM") => signalGroup(pid, child, signal),
    treeAlive: () => groupAlive(pid),
    closeOutput: output.close,
  };
}

/** One async queue over both pipes, pausing them while the consumer is behind. */
function mergedOutput(child: ChildProcess): { iterable: AsyncIterable<Uint8Array>; close(): void } {
  const streams = [child.stdout, child.stderr].filter((s) => s !== null);
  const queue: Uint8Array[] = [];
  let queued = 0;
  let open = streams.length;
  let closed = false;
  let paused = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  for (const stream of streams) {
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      open--;
      notify();
    };
    stream.on("data", (chunk: Uint8Array) => {
      if (closed) return;
      queue.push(chunk);
      queued += chunk.byteLength;
      if (!paused && queued > QUEUE_HIGH_WATER) {
        paused = true;
        for (const s of streams) s.pause();
      }
      notify();
    });
    stream.once("end", end);
    stream.once("close", end);
    stream.once("error", end);
  }
  const close = () => {
    if (closed) return;
    closed = true;
    for (const s of streams) s.destroy();
    notify();
  };

  const iterator: AsyncIterator<Uint8Array> = {
    async next() {
      for (;;) {
        const chunk = queue.shift();
        if (chunk) {
          queued -= chunk.byteLength;
          if (paused && queued < QUEUE_LOW_WATER && !closed) {
            paused = false;
            for (const s of streams) s.resume();
          }
          return { value: chunk, done: false };
        }
        if (closed || open === 0) return { value: undefined, done: true };
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    async return() {
      close();
      queue.length = 0;
      return { value: undefined, done: true };
    },
  };
  return { iterable: { [Symbol.asyncIterator]: () => iterator }, close };
}

/** An append-only file for output that does not fit in memory. */
export interface TempFile {
  readonly path: string;
  append(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** Creates `<directory>/<prefix><random hex>.log` (directory defaults to the system temp directory), readable only by this user. */
export async function createTempFile(prefix: string, directory: string = os.tmpdir()): Promise<TempFile> {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
  const file = path.join(directory, `${prefix}${random}.log`);
  const handle = await fs.open(file, "wx", 0o600);
  let closed = false;
  return {
    path: file,
    async append(bytes) {
      await handle.appendFile(bytes);
    },
    async close() {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}

/** A program to run directly (no shell), with its arguments, directory and environment. */
export interface SpawnProcessOptions {
  /** An absolute path, or a name looked up on the `PATH` of `env`. */
  command: string;
  args: string[];
  cwd: string;
  /** The whole environment of the program; defaults to this process's. */
  env?: Record<string, string>;
}

/** A running program with its three pipes. Both output streams must be read, or the program blocks once a pipe is full. */
export interface SpawnedProcess {
  readonly pid: number;
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array>;
  /** Settles when the program itself has exited (its children may live on). */
  readonly exited: Promise<ShellExit>;
  /** Writes to stdin; resolves once the bytes are handed to the pipe, rejects when stdin is closed. */
  write(bytes: Uint8Array): Promise<void>;
  closeStdin(): void;
  /** Signals the whole process group; falls back to the program alone. */
  killTree(signal?: KillSignal): void;
  /** Whether any process of the group still exists (zombies included). */
  treeAlive(): boolean;
  /** SIGTERM to the group, SIGKILL to whatever is left after `graceMs`; resolves when done. */
  terminate(graceMs?: number): Promise<void>;
}

/** Default time a process group gets to exit after SIGTERM before SIGKILL. */
export const TERMINATE_GRACE_MS = 2000;
/** How long `terminate` waits for a SIGKILLed group to disappear. */
const SIGKILL_WAIT_MS = 1000;

/**
 * Starts a program as the leader of its own process group, so that
 * `killTree` reaches everything it starts. Rejects with a readable message
 * when it cannot start (command not found, not executable, missing cwd).
 */
export async function spawnProcess(options: SpawnProcessOptions): Promise<SpawnedProcess> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
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
  const killTree = (signal: KillSignal = "SIGTERM") => signalGroup(pid, child, signal);
  const treeAlive = () => groupAlive(pid);
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
    killTree,
    treeAlive,
    async terminate(graceMs = TERMINATE_GRACE_MS) {
      if (!treeAlive()) return;
      killTree("SIGTERM");
      const deadline = Date.now() + graceMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      // Children of the program may take a little longer than the program itself.
      while (treeAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      if (!treeAlive()) return;
      killTree("SIGKILL");
      // SIGKILL is delivered asynchronously: wait (briefly) until the group is really gone.
      const killDeadline = Date.now() + SIGKILL_WAIT_MS;
      while (treeAlive() && Date.now() < killDeadline) await new Promise((resolve) => setTimeout(resolve, 10));
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

function exitOf(child: ChildProcess): Promise<ShellExit> {
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal: signal ?? null })));
}

/** Resolves once the process runs; rejects when it could not start. */
function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
}

function signalGroup(pid: number, child: ChildProcess, signal: KillSignal): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as { code?: string }).code === "ESRCH") return;
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Whether the group has a member that still runs; zombies do not count (an init that never reaps would keep them forever). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true; // no /proc: trust the signal probe
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesised name: state, ppid, pgrp, …
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") return true;
  }
  return false;
}
