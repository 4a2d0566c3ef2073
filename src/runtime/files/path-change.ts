/**
 * Waiting for another process to change a file (release a lock file),
 * woken by the file system's change events rather than by polling.
 * @module
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import path from "node:path";

/**
 * Resolves at the first change in `target`'s folder, or at once when
 * `target` does not exist (checked after the watch has begun, so a removal
 * just before it is not missed); rejects with the signal's reason when
 * `signal` aborts first.
 */
export async function waitForChange(target: string, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    let watcher: FSWatcher | undefined;
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      watcher?.close();
      signal.removeEventListener("abort", onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = () => finish(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      watcher = watch(path.dirname(target), { persistent: true }, () => finish());
      watcher.on("error", (error) => finish(error));
    } catch (error) {
      finish(error);
      return;
    }
    if (!existsSync(target)) finish();
  });
}
