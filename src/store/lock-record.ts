/**
 * What a session lock file holds, and who is asking: the holder's pid, host
 * and instance, and the heartbeat timing. See docs/storage.md for the format.
 * @module
 */
import { hostIdentity, type HostIdentity } from "../runtime/host/host-identity.ts";
import { processId, processStartTime } from "../runtime/process/process.ts";
import { randomHex } from "../runtime/random-hex.ts";

/** The content of a lock file. Locks written before hosts were recorded have only `pid`, `at` and `token`. */
export interface LockRecord {
  pid: number;
  at?: string;
  token?: string;
  host?: HostIdentity;
  /** A random id of the holding process (or store), fixed for its lifetime. */
  instance?: string;
  /** When the holding process started (see `processStartTime`), to tell a reused pid. */
  started?: string;
}

/** Who takes locks, and how their liveness is judged. Tests inject all of it; the defaults describe this process. */
export interface LockSettings {
  host: HostIdentity;
  instance: string;
  pid: number;
  /** A holder refreshes its lock file's mtime this often. */
  heartbeatMs: number;
  /** A lock that cannot be judged by its pid is stale once its mtime is older than this. */
  staleAfterMs: number;
}

/** Default heartbeat: every 10 s, stale after 60 s without one. */
export const DEFAULT_HEARTBEAT_MS = 10_000;
export const DEFAULT_STALE_AFTER_MS = 60_000;

// Drawn on first use: reading the runtime's random source loads its whole crypto module, which start-up need not pay for.
let processInstance: string | undefined;

/** Refuses timings under which a live holder could look stale (the defaults apply to what `overrides` leaves out). */
export function checkLockTimings(overrides: Partial<LockSettings> = {}): void {
  const heartbeatMs = overrides.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const staleAfterMs = overrides.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  if (!(heartbeatMs > 0) || !(staleAfterMs >= 2 * heartbeatMs)) {
    throw new Error(`lock heartbeat ${heartbeatMs} ms and expiry ${staleAfterMs} ms: the expiry must be at least twice the heartbeat`);
  }
}

/** This process's settings, with `overrides` applied; refuses timings under which a live holder could look stale. */
export function lockSettings(overrides: Partial<LockSettings> = {}): LockSettings {
  checkLockTimings(overrides);
  return {
    host: overrides.host ?? hostIdentity(),
    instance: overrides.instance ?? (processInstance ??= randomHex(8)),
    pid: overrides.pid ?? processId(),
    heartbeatMs: overrides.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    staleAfterMs: overrides.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
  };
}

/** The record a new lock of `settings` holds. */
export function newLockRecord(settings: LockSettings, token: string): LockRecord {
  const started = processStartTime(settings.pid);
  return {
    pid: settings.pid,
    at: new Date().toISOString(),
    token,
    host: settings.host,
    instance: settings.instance,
    ...(started ? { started } : {}),
  };
}

/** The record in a lock file's text, or undefined when it is not one (garbled, or still being written). */
export function parseLockRecord(text: string): LockRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const o = value as Record<string, unknown>;
  if (typeof o.pid !== "number" || !Number.isInteger(o.pid) || o.pid <= 0) return undefined;
  const host = parseHost(o.host);
  return {
    pid: o.pid,
    ...(typeof o.at === "string" ? { at: o.at } : {}),
    ...(typeof o.token === "string" ? { token: o.token } : {}),
    ...(host ? { host } : {}),
    ...(typeof o.instance === "string" ? { instance: o.instance } : {}),
    ...(typeof o.started === "string" ? { started: o.started } : {}),
  };
}

function parseHost(value: unknown): HostIdentity | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const o = value as Record<string, unknown>;
  if (typeof o.name !== "string") return undefined;
  const host: HostIdentity = { name: o.name };
  if (typeof o.boot === "string") host.boot = o.boot;
  if (typeof o.pidNamespace === "string") host.pidNamespace = o.pidNamespace;
  if (typeof o.machine === "string") host.machine = o.machine;
  return host;
}
