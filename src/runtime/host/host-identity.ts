/**
 * Which machine, and which pid namespace on it, this process runs in: two
 * processes can compare pids only when they share both. Containers on one
 * kernel share the boot id but not the pid namespace; copies of one image
 * may share the machine id and even the host name, so every part that can
 * be read is kept.
 * @module
 */
import { readFileSync, readlinkSync } from "node:fs";
import os from "node:os";

/** The parts that name a host; absent ones could not be read here. */
export interface HostIdentity {
  /** The host name (for people; not unique on its own). */
  name: string;
  /** Linux: the kernel's boot id, new at every boot. */
  boot?: string;
  /** Linux: the pid namespace (`pid:[inode]`), distinct per container. */
  pidNamespace?: string;
  /** The machine id (`/etc/machine-id`), when present. */
  machine?: string;
}

let cached: HostIdentity | undefined;

/** This process's host identity; read once. */
export function hostIdentity(): HostIdentity {
  if (cached) return cached;
  const identity: HostIdentity = { name: os.hostname() };
  const boot = readTrimmed(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8"));
  const pidNamespace = readTrimmed(() => readlinkSync("/proc/self/ns/pid"));
  const machine = readTrimmed(() => readFileSync("/etc/machine-id", "utf8"));
  if (boot) identity.boot = boot;
  if (pidNamespace) identity.pidNamespace = pidNamespace;
  if (machine) identity.machine = machine;
  cached = identity;
  return identity;
}

/** Whether two identities name the same host and pid namespace: every part equal, absent parts included. */
export function sameHost(a: HostIdentity, b: HostIdentity): boolean {
  return a.name === b.name && a.boot === b.boot && a.pidNamespace === b.pidNamespace && a.machine === b.machine;
}

function readTrimmed(read: () => string): string | undefined {
  try {
    const value = read().trim();
    return value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}
