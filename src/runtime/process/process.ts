/**
 * Process-level facts and actions: arguments, environment, working directory,
 * exit, signals. Node's `process` module is implemented by Bun and Deno too.
 * @module
 */
import process from "node:process";
import os from "node:os";
import { startTicksOf } from "./proc-table.ts";

/** Command-line arguments after the runtime and script path. */
export function commandArgs(): string[] {
  return process.argv.slice(2);
}

/** One environment variable, or undefined when unset or empty. */
export function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** A copy of the whole environment (for child processes). */
export function envSnapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export function currentDirectory(): string {
  return process.cwd();
}

export function homeDirectory(): string {
  return os.homedir();
}

/** The user's home directory, or undefined when it cannot be told; Deno without `--allow-sys=homedir` refuses to say, but `HOME` still does. */
export function userHomeDirectory(): string | undefined {
  try {
    return homeDirectory();
  } catch {
    return env("HOME") ?? env("USERPROFILE");
  }
}

export function tempDirectory(): string {
  return os.tmpdir();
}

export function platform(): string {
  return process.platform;
}

export function runtimeVersion(): string {
  const versions = process.versions as Record<string, string | undefined>;
  return versions.bun ?? versions.deno ?? process.version;
}

export function processId(): number {
  return process.pid;
}

/**
 * Whether a process with this id exists. A process of another user counts as
 * alive (EPERM); only "no such process" (ESRCH) means dead.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== "ESRCH";
  }
}

/**
 * When process `pid` started, as an opaque string (Linux: clock ticks since
 * boot, from /proc), or undefined where it cannot be read. A pid reused by a
 * later process has a different start time.
 */
export function processStartTime(pid: number): string | undefined {
  return startTicksOf(pid)?.toString();
}

/** Ends the process. Pending stdout writes must be flushed by the caller first. */
export function exitProcess(code: number): never {
  process.exit(code);
}

export function setExitCode(code: number): void {
  process.exitCode = code;
}

export type SignalName = "SIGINT" | "SIGTERM";

/** Registers a handler for a termination signal; returns a function that removes it. */
export function onSignal(signal: SignalName, handler: () => void): () => void {
  process.on(signal, handler);
  return () => {
    process.off(signal, handler);
  };
}

/** Runs `handler` once when an error escapes every other handler. */
export function onUncaughtError(handler: (error: unknown) => void): void {
  process.on("uncaughtException", handler);
  process.on("unhandledRejection", handler);
}

/** Memory in use by this process, in bytes. */
export function residentMemory(): number {
  return process.memoryUsage().rss;
}

/** A monotonic clock in milliseconds. */
export function now(): number {
  return performance.now();
}
