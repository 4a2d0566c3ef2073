/**
 * One writer at a time for a file that several acp-edge processes may change
 * at once (`auth.json` and `settings.json`, by two logins): `<file>.lock`,
 * created exclusively for the few milliseconds of a read-change-write, naming
 * its holder. Waiters wake on file-system events. A lock whose holder is gone
 * (dead, or its pid now another process, on this host) is taken over; a lock
 * from another host is waited for, then reported.
 * @module
 */
import { hostIdentity, sameHost, type HostIdentity } from "../runtime/host/host-identity.ts";
import { createExclusive, errorCode, isNotFound, readTextFile, removeFile } from "../runtime/files/fs.ts";
import { log } from "../runtime/log.ts";
import { waitForChange } from "../runtime/files/path-change.ts";
import { isProcessAlive, processId, processStartTime } from "../runtime/process/process.ts";
import { randomHex } from "../runtime/random-hex.ts";
import { removeStaleLock } from "../runtime/files/stale-lock.ts";
import { ConfigError } from "./settings.ts";

/** How long a writer waits for another to finish before giving up with an error. */
const WAIT_MS = 15_000;

interface Holder {
  pid: number;
  started?: string;
  host: HostIdentity;
  token: string;
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === "number" && typeof value.token === "string" && typeof value.host === "object" && value.host !== null) return value as Holder;
  } catch {
    // Garbled, or its writer has not written it yet.
  }
  return undefined;
}

/** Whether a lock of this host names a holder that is certainly gone. */
function isStale(holder: Holder): boolean {
  if (!sameHost(holder.host, hostIdentity())) return false;
  if (holder.pid === processId()) return true; // a crashed predecessor of ours (pid 1 in a container)
  if (!isProcessAlive(holder.pid)) return true;
  const started = processStartTime(holder.pid);
  return holder.started !== undefined && started !== undefined && started !== holder.started;
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readTextFile(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Runs `task` while holding `<target>.lock`; throws `ConfigError` when the lock cannot be had. */
export async function withUpdateLock<T>(target: string, task: () => Promise<T>): Promise<T> {
  const lockPath = `${target}.lock`;
  const pid = processId();
  const started = processStartTime(pid);
  const token = randomHex(8);
  const text = `${JSON.stringify({ pid, ...(started ? { started } : {}), host: hostIdentity(), token })}\n`;
  const deadline = AbortSignal.timeout(WAIT_MS);
  let holder: Holder | undefined;
  let announced = false;
  for (;;) {
    try {
      await createExclusive(lockPath, text, 0o600);
      break;
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw new ConfigError(`cannot lock ${target}: ${(error as Error).message}`);
    }
    const current = await readIfPresent(lockPath);
    if (current === undefined) continue;
    holder = parseHolder(current);
    if (holder && isStale(holder)) {
      await removeStaleLock(lockPath, current, (text) => parseHolder(text) !== undefined);
      continue;
    }
    const who = holder ? `process ${holder.pid}${sameHost(holder.host, hostIdentity()) ? "" : ` on ${holder.host.name}`}` : "another process";
    if (!announced) log.info(`waiting for ${who} to finish changing ${target}`);
    announced = true;
    try {
      await waitForChange(lockPath, deadline);
    } catch {
      throw new ConfigError(`${target} is being changed by ${who}; try again, or remove ${lockPath} if no acp-edge is running there`);
    }
  }
  try {
    return await task();
  } finally {
    // Removed only while it is still ours (a lock taken over from us is the new holder's).
    if ((await readIfPresent(lockPath).catch(() => undefined)) === text) await removeFile(lockPath).catch(() => undefined);
  }
}
