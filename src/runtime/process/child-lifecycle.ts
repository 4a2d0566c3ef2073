/**
 * Start and exit of a `node:child_process` child, shared by the shell and
 * program spawners: a start that rejects when the process cannot run, an
 * exit promise, and a kill of the child alone for when its group is out of reach.
 * @module
 */
import type { ChildProcess } from "node:child_process";
import process from "node:process";
import type { KillSignal } from "./process-tree.ts";

/** How a process ended: a code, or the signal that killed it. */
export interface ShellExit {
  code: number | null;
  signal: string | null;
}

/** Settles when the child has exited. Call before `started`, so an early exit is not missed. */
export function exitOf(child: ChildProcess): Promise<ShellExit> {
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal: signal ?? null })));
}

/** Resolves once the process runs; rejects when it could not start. */
export function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
}

/** Signals the child alone; a child already gone is fine. */
export function killChild(child: ChildProcess, signal: KillSignal): void {
  try {
    child.kill(signal);
  } catch {
    // already gone
  }
}

/** The child's environment with the tree marker added: `env`, or this process's when absent. */
export function withMarker(env: Record<string, string> | undefined, variable: string, marker: string): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(env ?? process.env)) if (value !== undefined) base[key] = value;
  base[variable] = marker;
  return base;
}
