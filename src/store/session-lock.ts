/**
 * The per-session lock: `<file>.lock`, created with O_EXCL, holding
 * `{"pid": N, "at": "…", "token": "…"}`. Only the holder appends. A lock
 * whose process is gone (or whose content is unreadable) is stale and is
 * taken over; one held by a live process, this one included, refuses.
 * "This one" is known by token, not pid alone: in a container a restarted
 * agent often gets the pid its crashed predecessor had, and that
 * predecessor's lock is stale.
 * @module
 */
import { createExclusive, errorCode, isNotFound, readTextFile, removeFile, rename } from "../runtime/fs.ts";
import { isProcessAlive, processId } from "../runtime/process.ts";
import { StoreError } from "./types.ts";

/** A held lock. */
export interface SessionLock {
  /** Removes the lock file if it is still this holder's. Idempotent. */
  release(): Promise<void>;
}

/** Who holds a lock file right now. */
export type LockState =
  | { kind: "free" }
  | { kind: "stale"; content: string }
  | { kind: "own"; pid: number }
  | { kind: "other"; pid: number };

/** A lock being written by its creator reads empty for a moment; it is retried this often before counting as stale. */
const UNREADABLE_RETRIES = 5;
const UNREADABLE_RETRY_MS = 10;
const ACQUIRE_ATTEMPTS = 5;

/** Tokens of the locks this process holds, across every store instance in it. */
const heldTokens = new Set<string>();

/** Takes the lock of session `sessionId` or throws StoreError("locked" | "io"). */
export async function acquireSessionLock(lockPath: string, sessionId: string): Promise<SessionLock> {
  const token = randomToken();
  const content = `${JSON.stringify({ pid: processId(), at: new Date().toISOString(), token })}\n`;
  for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
    try {
      await createExclusive(lockPath, content, 0o600);
      heldTokens.add(token);
      return { release: () => releaseIfOurs(lockPath, token) };
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw ioError(sessionId, "lock", error);
    }
    const state = await inspectLock(lockPath);
    if (state.kind === "own" || state.kind === "other") throw lockedError(sessionId, state);
    if (state.kind === "stale") await removeStale(lockPath, state.content).catch((error) => {
      throw ioError(sessionId, "take over the stale lock of", error);
    });
    // free (removed meanwhile) or stale (just removed): try again.
  }
  throw new StoreError("locked", `session ${sessionId} could not be locked: its lock file ${lockPath} keeps changing`);
}

/** Reads a lock file and judges it; never throws for a missing or garbled file. */
export async function inspectLock(lockPath: string): Promise<LockState> {
  for (let retry = 0; ; retry++) {
    let text: string;
    try {
      text = await readTextFile(lockPath);
    } catch (error) {
      if (isNotFound(error)) return { kind: "free" };
      return { kind: "stale", content: "" };
    }
    const pid = pidIn(text);
    if (pid !== undefined) {
      if (pid === processId()) {
        const token = tokenIn(text);
        return token !== undefined && heldTokens.has(token) ? { kind: "own", pid } : { kind: "stale", content: text };
      }
      return isProcessAlive(pid) ? { kind: "other", pid } : { kind: "stale", content: text };
    }
    if (retry >= UNREADABLE_RETRIES) return { kind: "stale", content: text };
    await new Promise((resolve) => setTimeout(resolve, UNREADABLE_RETRY_MS));
  }
}

/** The error for a lock held by a live process. */
export function lockedError(sessionId: string, state: { kind: "own" | "other"; pid: number }): StoreError {
  return new StoreError(
    "locked",
    state.kind === "own"
      ? `session ${sessionId} is already open in this process (pid ${state.pid}); use the open session instead of opening it again`
      : `session ${sessionId} is open in another acp-edge process (pid ${state.pid}); close it there first`,
  );
}

/**
 * Moves the stale lock aside before deleting it, so two processes taking over
 * the same stale lock cannot both succeed: the second one's rename either
 * finds nothing or grabs the first one's fresh lock, which it puts back.
 */
async function removeStale(lockPath: string, staleContent: string): Promise<void> {
  const aside = `${lockPath}.${randomToken()}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  const moved = await readTextFile(aside).catch(() => "");
  if (moved !== staleContent && pidIn(moved) !== undefined) {
    await rename(aside, lockPath).catch(() => undefined);
    return;
  }
  await removeFile(aside);
}

async function releaseIfOurs(lockPath: string, token: string): Promise<void> {
  if (!heldTokens.delete(token)) return;
  let text: string;
  try {
    text = await readTextFile(lockPath);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  if (tokenIn(text) === token) await removeFile(lockPath);
}

function pidIn(text: string): number | undefined {
  const value = parseObject(text);
  const pid = value?.pid;
  return typeof pid === "number" && Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function tokenIn(text: string): string | undefined {
  const token = parseObject(text)?.token;
  return typeof token === "string" ? token : undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function randomToken(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** StoreError("io") naming what failed on which session. */
export function ioError(sessionId: string, action: string, error: unknown): StoreError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreError("io", `cannot ${action} session ${sessionId}: ${reason}`);
}
