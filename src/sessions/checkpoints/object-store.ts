/**
 * The session's checkpoint store: copies of file contents, each kept once
 * under the SHA-256 of its bytes (content-addressed), in the session's own
 * private folder outside the project — never in the project's `.git` —
 * so it goes when the session is deleted. Bounded: past its size limit
 * nothing more is kept, and the caller says so.
 * @module
 */
import { join } from "../../runtime/files/path.ts";
import { makeDirectory, readDir, readFileBytes, rename, statOrUndefined, writeFile } from "../../runtime/files/fs.ts";

/** Bytes a session may keep in its checkpoint store. */
export const STORE_LIMIT_BYTES = 256 * 1024 * 1024;

/** The id of `bytes`: the lowercase hex SHA-256. */
export async function contentId(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

const ID = /^[0-9a-f]{64}$/;

/** One session's store. */
export class ObjectStore {
  readonly #folder: string;
  readonly #limit: number;
  /** Bytes kept so far; counted from the folder on first use. */
  #used: number | undefined;

  constructor(folder: string, limit = STORE_LIMIT_BYTES) {
    this.#folder = folder;
    this.#limit = limit;
  }

  #path(id: string): string {
    return join(this.#folder, id.slice(0, 2), id);
  }

  async #usedBytes(): Promise<number> {
    if (this.#used !== undefined) return this.#used;
    let used = 0;
    for (const shard of await readDir(this.#folder).catch(() => [])) {
      if (!shard.isDirectory) continue;
      for (const entry of await readDir(join(this.#folder, shard.name)).catch(() => [])) {
        used += (await statOrUndefined(join(this.#folder, shard.name, entry.name)))?.size ?? 0;
      }
    }
    this.#used = used;
    return used;
  }

  /** Keeps `bytes` (once, whatever how often); their id, or undefined when the store is full. */
  async put(bytes: Uint8Array, id?: string): Promise<string | undefined> {
    const key = id ?? (await contentId(bytes));
    const path = this.#path(key);
    if (await statOrUndefined(path)) return key;
    // Counted before the write, so copies kept at the same time cannot together pass the limit.
    const used = (await this.#usedBytes(), this.#used!);
    if (used + bytes.length > this.#limit) return undefined;
    this.#used = used + bytes.length;
    // Not fsynced one by one (the first snapshot of a project keeps thousands): a copy a crash left short or
    // empty fails its hash check when read, and that file is then reported as not kept rather than put back wrong.
    await makeDirectory(join(this.#folder, key.slice(0, 2)), 0o700);
    const temporary = `${path}.${crypto.randomUUID()}.tmp`;
    await writeFile(temporary, bytes, 0o600);
    await rename(temporary, path);
    return key;
  }

  /** The bytes kept under `id`; rejects when there are none (or the id is not one). */
  async get(id: string): Promise<Uint8Array> {
    if (!ID.test(id)) throw new Error(`not a checkpoint id: ${id.slice(0, 80)}`);
    const bytes = await readFileBytes(this.#path(id));
    // A copy changed on disk is not put back as if it were the original.
    if ((await contentId(bytes)) !== id) throw new Error("the kept copy was damaged");
    return bytes;
  }
}
