/**
 * Taking over a lock file whose holder is gone, shared by every lock of the
 * program (session journals, home files).
 * @module
 */
import { isNotFound, readTextFile, removeFile, rename } from "./fs.ts";
import { randomHex } from "../random-hex.ts";

/**
 * Removes lock file `lockPath` judged stale from its text `staleText`. It is
 * moved aside before it is deleted, so two processes taking over the same
 * stale lock cannot both succeed: the second one's move either finds nothing
 * or grabs the first one's fresh lock (a text `isLock` accepts, other than
 * the stale one), which it puts back.
 */
export async function removeStaleLock(lockPath: string, staleText: string, isLock: (text: string) => boolean): Promise<void> {
  const aside = `${lockPath}.${randomHex(8)}.stale`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  const moved = await readTextFile(aside).catch(() => "");
  if (moved !== staleText && isLock(moved)) {
    await rename(aside, lockPath).catch(() => undefined);
    return;
  }
  await removeFile(aside);
}
