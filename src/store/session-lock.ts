/**
 * The per-session lock: `<file>.lock`, created with O_EXCL, naming its
 * holder's pid, host and instance (see lock-record.ts). Only the holder
 * appends, and it refreshes the file's mtime as a heartbeat while it holds
 * the lock.
 *
 * Judging a lock someone else wrote: pids mean something only on the same
 * host and pid namespace, so
 * - on another host (or a lock that names no host, written by an older
 *   version) the lock holds until its heartbeat has been silent for
 *   `staleAfterMs`: two containers sharing one directory both run as pid 1;
 * - on this host a lock is stale when its pid is ours (a crashed
 *   predecessor's), dead, or now another process (its start time differs);
 *   a holder proven alive keeps it, and where start times cannot be read the
 *   heartbeat decides.
 * A holder that finds its lock taken over (its heartbeat expired, e.g. while
 * it was suspended) marks it lost, and its journal stops appending.
 * @module
 */
import { createExclusive, errorCode, isNotFound, readTextFile, removeFile, setFileTimes, statOrUndefined } from "../runtime/files/fs.ts";
import { sameHost } from "../runtime/host/host-identity.ts";
import { isProcessAlive, processStartTime } from "../runtime/process/process.ts";
import { repeatInBackground } from "../runtime/timers.ts";
import { newLockRecord, parseLockRecord, type LockRecord, type LockSettings } from "./lock-record.ts";
import { randomHex } from "../runtime/random-hex.ts";
import { removeStaleLock } from "../runtime/files/stale-lock.ts";
import { StoreError } from "./types.ts";

/** A held lock. */
export interface SessionLock {
  /** True once another process took the lock over; the holder must stop writing. */
  readonly lost: boolean;
  /** Stops the heartbeat and removes the lock file if it is still this holder's. Idempotent. */
  release(): Promise<void>;
}

/** Who holds a lock file right now. */
export type LockState =
  | { kind: "free" }
  | { kind: "stale"; content: string }
  | { kind: "own"; pid: number }
  /** `elsewhere`: the holder is not on this host (its name, or undefined when the lock names none), so only its heartbeat tells. */
  | { kind: "other"; pid: number; elsewhere?: { host: string | undefined; staleAfterMs: number } };

/** A lock being written by its creator reads empty for a moment; it is retried this often before counting as stale. */
const UNREADABLE_RETRIES = 5;
const UNREADABLE_RETRY_MS = 10;
const ACQUIRE_ATTEMPTS = 5;

/** Tokens of the locks held (or being taken) in this process, across every store instance in it. */
const heldTokens = new Set<string>();

/** Takes the lock of session `sessionId` or throws StoreError("locked" | "io"). */
export async function acquireSessionLock(lockPath: string, sessionId: string, settings: LockSettings): Promise<SessionLock> {
  const token = randomHex(8);
  const content = `${JSON.stringify(newLockRecord(settings, token))}\n`;
  for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
    // Known as ours before the file exists, so a concurrent inspection in this process never judges it stale.
    heldTokens.add(token);
    try {
      await createExclusive(lockPath, content, 0o600);
      return holdLock(lockPath, token, settings);
    } catch (error) {
      heldTokens.delete(token);
      if (errorCode(error) !== "EEXIST") throw ioError(sessionId, "lock", error);
    }
    const state = await inspectLock(lockPath, settings);
    if (state.kind === "own" || state.kind === "other") throw lockedError(sessionId, state);
    if (state.kind === "stale") await removeStaleLock(lockPath, state.content, (text) => parseLockRecord(text) !== undefined).catch((error) => {
      throw ioError(sessionId, "take over the stale lock of", error);
    });
    // free (removed meanwhile) or stale (just removed): try again.
  }
  throw new StoreError("locked", `session ${sessionId} could not be locked: its lock file ${lockPath} keeps changing`);
}

/** Reads a lock file and judges it; never throws for a missing or garbled file. */
export async function inspectLock(lockPath: string, settings: LockSettings): Promise<LockState> {
  for (let retry = 0; ; retry++) {
    let text: string;
    let mtimeMs: number;
    try {
      text = await readTextFile(lockPath);
      const info = await statOrUndefined(lockPath);
      if (!info) return { kind: "free" };
      mtimeMs = info.mtimeMs;
    } catch (error) {
      if (isNotFound(error)) return { kind: "free" };
      return { kind: "stale", content: "" };
    }
    const record = parseLockRecord(text);
    if (record) return judge(record, text, mtimeMs, settings);
    if (retry >= UNREADABLE_RETRIES) return { kind: "stale", content: text };
    await new Promise((resolve) => setTimeout(resolve, UNREADABLE_RETRY_MS));
  }
}

function judge(record: LockRecord, content: string, mtimeMs: number, settings: LockSettings): LockState {
  const { pid } = record;
  if (record.instance === settings.instance && record.token !== undefined && heldTokens.has(record.token)) return { kind: "own", pid };
  const stale: LockState = { kind: "stale", content };
  const heartbeatExpired = Date.now() - mtimeMs > settings.staleAfterMs;
  if (!record.host || !sameHost(record.host, settings.host)) {
    // Another host's pid means nothing here: only the heartbeat tells.
    if (heartbeatExpired) return stale;
    return { kind: "other", pid, elsewhere: { host: record.host?.name, staleAfterMs: settings.staleAfterMs } };
  }
  const other: LockState = { kind: "other", pid };
  if (record.instance === settings.instance || pid === settings.pid || !isProcessAlive(pid)) return stale;
  const startedNow = processStartTime(pid);
  if (record.started !== undefined && startedNow !== undefined) return record.started === startedNow ? other : stale;
  return heartbeatExpired ? stale : other;
}

/** The error for a lock held by a live process. */
export function lockedError(sessionId: string, state: Extract<LockState, { kind: "own" | "other" }>): StoreError {
  if (state.kind === "own") {
    return new StoreError(
      "locked",
      `session ${sessionId} is already open in this process (pid ${state.pid}); use the open session instead of opening it again`,
    );
  }
  const { elsewhere } = state;
  if (!elsewhere) {
    return new StoreError("locked", `session ${sessionId} is open in another acp-edge process (pid ${state.pid}); close it there first`);
  }
  const where = elsewhere.host === undefined ? "on a host its lock does not name" : `on host ${elsewhere.host}`;
  return new StoreError(
    "locked",
    `session ${sessionId} is open in another acp-edge process (pid ${state.pid} ${where}); close it there first, ` +
      `or wait until its lock expires ${Math.ceil(elsewhere.staleAfterMs / 1000)} s after its last heartbeat`,
  );
}

function holdLock(lockPath: string, token: string, settings: LockSettings): SessionLock {
  let lost = false;
  let released = false;
  const heartbeat = repeatInBackground(settings.heartbeatMs, () => {
    void stillOurs(lockPath, token).then((ours) => {
      if (released || ours === undefined) return;
      if (!ours) {
        lost = true;
        heartbeat.stop();
        heldTokens.delete(token);
        return;
      }
      return setFileTimes(lockPath, new Date()).catch(() => undefined);
    });
  });
  return {
    get lost() {
      return lost;
    },
    async release() {
      if (released) return;
      released = true;
      heartbeat.stop();
      if (!heldTokens.delete(token)) return;
      if ((await stillOurs(lockPath, token)) === true) await removeFile(lockPath);
    },
  };
}

/** Whether the lock file still holds `token`; undefined when it cannot be read for another reason than being gone. */
async function stillOurs(lockPath: string, token: string): Promise<boolean | undefined> {
  try {
    return parseLockRecord(await readTextFile(lockPath))?.token === token;
  } catch (error) {
    return isNotFound(error) ? false : undefined;
  }
}


/** StoreError("io") naming what failed on which session. */
export function ioError(sessionId: string, action: string, error: unknown): StoreError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreError("io", `cannot ${action} session ${sessionId}: ${reason}`);
}
