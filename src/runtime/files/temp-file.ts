/**
 * Temp files for command output too big to keep in memory.
 * @module
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/** An append-only file for output that does not fit in memory. */
export interface TempFile {
  readonly path: string;
  append(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** Creates `<directory>/<prefix><random hex>.log` (directory defaults to the system temp directory), readable only by this user. */
export async function createTempFile(prefix: string, directory: string = os.tmpdir()): Promise<TempFile> {
  const random = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
  const file = path.join(directory, `${prefix}${random}.log`);
  const handle = await fs.open(file, "wx", 0o600);
  let closed = false;
  return {
    path: file,
    async append(bytes) {
      await handle.appendFile(bytes);
    },
    async close() {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}
