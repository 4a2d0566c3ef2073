import { readdirSync, readFileSync } from "node:fs";

/** True when `pid` no longer runs (gone, or a zombie waiting to be reaped). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Peak resident memory of a process so far, in bytes (Linux `VmHWM`). */
export function peakMemory(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** A running (not zombie) process whose environment holds `entry` (`NAME=value`), with its command line. */
export interface MarkedProcess {
  pid: number;
  command: string;
}

/** Every running process of this user whose environment holds `entry` exactly (Linux: reads /proc). */
export function processesWithEnv(entry: string): MarkedProcess[] {
  const found: MarkedProcess[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      if (!readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry)) continue;
      if (processGone(pid)) continue;
      found.push({ pid, command: readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").filter(Boolean).join(" ") });
    } catch {
      // exited meanwhile, or not ours to read
    }
  }
  return found;
}

/** SIGKILLs every process `processesWithEnv(entry)` finds: cleanup after a failed assertion. */
export function killProcessesWithEnv(entry: string): void {
  for (const { pid } of processesWithEnv(entry)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
