/**
 * Serialising changes to one file. Tools run in parallel; two edits to the
 * same file must not both read the old content and then overwrite each other.
 * @module
 */

// The promise each path's latest holder resolves when it is done.
const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` once every earlier task for the same `key` (an absolute,
 * preferably symlink-free path) has finished, successfully or not. Tasks for
 * other keys run in parallel.
 */
export async function withFileLock<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => done);
  tails.set(key, tail);
  try {
    await previous;
    return await task();
  } finally {
    release();
    // The last holder cleans up, so the map only holds paths being written.
    if (tails.get(key) === tail) tails.delete(key);
  }
}

/** How many paths currently have a task running or waiting (for tests). */
export function lockedPathCount(): number {
  return tails.size;
}
