/**
 * A snapshot of the Linux process table from `/proc`: who is whose parent,
 * which group each process is in, whether it still runs, and whether its
 * environment carries a given entry. Elsewhere (no `/proc`) there is no
 * table and callers fall back to process groups.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { Buffer } from "node:buffer";

/** One process as `/proc/<pid>/stat` describes it. */
export interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  /** The state letter: R, S, D, T, Z, … */
  state: string;
  /** When it started, in clock ticks since boot: no process is older than its ancestors. */
  startTicks: number;
}

/** When process `pid` started, in clock ticks since boot; undefined when it cannot be read. */
export function startTicksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const field = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return field !== undefined && /^\d+$/.test(field) ? Number(field) : undefined;
  } catch {
    return undefined;
  }
}

/** Every process visible now, or undefined when there is no `/proc` to read. */
export function readProcTable(): ProcEntry[] | undefined {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const entries: ProcEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // exited meanwhile
    }
    // The name in parentheses may hold spaces and parentheses; the fields after the last ")" are: state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [state, ppid, pgrp] = fields;
    if (state === undefined) continue;
    entries.push({ pid: Number(name), ppid: Number(ppid), pgrp: Number(pgrp), state, startTicks: Number(fields[19]) });
  }
  return entries;
}

/**
 * Whether the environment of `pid` holds exactly `entry` (`NAME=value`).
 * False when it cannot be read: exited, another user's, or not dumpable.
 */
export function environmentHas(pid: number, entry: string): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  const needle = Buffer.from(`${entry}\0`, "latin1");
  let at = environ.indexOf(needle);
  while (at !== -1) {
    if (at === 0 || environ[at - 1] === 0) return true;
    at = environ.indexOf(needle, at + 1);
  }
  // The last entry may lack its terminating NUL.
  const last = Buffer.from(entry, "latin1");
  const tail = environ.length - last.length;
  return tail >= 0 && (tail === 0 || environ[tail - 1] === 0) && environ.subarray(tail).equals(last);
}
