/**
 * The append side of one session file. Each entry is one line written with
 * one write; appends run one at a time in call order (a promise chain), and
 * an append with `sync` resolves only after fsync. A file left without a
 * final newline (a torn write by a crashed process, or a failed write here)
 * gets one before the next entry, so entries never glue together.
 * @module
 */
import { readFileTail, type AppendHandle } from "../runtime/files/fs.ts";
import { ioError, type SessionLock } from "./session-lock.ts";
import { entryLine } from "./entry-line.ts";
import { StoreError, type SessionJournal, type StoredEntry } from "./types.ts";

/** Journals open in this process by file, so `delete` can tell one that its file is gone. */
const openJournals = new Map<string, JsonlJournal>();

/** The open journal of `file` in this process, if any. */
export function openJournalOf(file: string): JsonlJournal | undefined {
  return openJournals.get(file);
}

/** A journal over an open append handle; holds the session's lock until closed. */
export class JsonlJournal implements SessionJournal {
  readonly id: string;
  readonly #file: string;
  readonly #handle: AppendHandle;
  readonly #lock: SessionLock;
  #chain: Promise<void> = Promise.resolve();
  /** The file may not end with "\n": look before the next write. */
  #mayBeTorn: boolean;
  #deleted = false;
  #closing: Promise<void> | undefined;

  constructor(id: string, file: string, handle: AppendHandle, lock: SessionLock, endsWithNewline: boolean) {
    this.id = id;
    this.#file = file;
    this.#handle = handle;
    this.#lock = lock;
    this.#mayBeTorn = !endsWithNewline;
    openJournals.set(file, this);
  }

  append(entry: StoredEntry, options: { sync?: boolean } = {}): Promise<void> {
    if (this.#closing) return Promise.reject(new StoreError("io", `session ${this.id} is closed; open it again to append`));
    let line: string;
    try {
      // Serialised now: `at` is the time of the call, and later changes to `entry` do not leak in.
      line = entryLine(entry);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#enqueue(async () => {
      if (this.#deleted) throw new StoreError("not_found", `session ${this.id} was deleted; the entry was not stored`);
      if (this.#lock.lost) {
        throw new StoreError("locked", `session ${this.id} was taken over by another acp-edge process after this one's lock expired; the entry was not stored`);
      }
      const prefix = (await this.#needsNewline()) ? "\n" : "";
      try {
        await this.#handle.append(prefix + line);
      } catch (error) {
        this.#mayBeTorn = true;
        throw ioError(this.id, "append to", error);
      }
      this.#mayBeTorn = false;
      if (options.sync) await this.#fsync();
    });
  }

  sync(): Promise<void> {
    return this.#enqueue(() => this.#fsync());
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** Called by `delete` in this process: later appends fail instead of writing to an unlinked file. */
  markDeleted(): void {
    this.#deleted = true;
  }

  async #close(): Promise<void> {
    await this.#chain;
    try {
      if (!this.#deleted) await this.#fsync();
    } finally {
      try {
        await this.#handle.close();
      } finally {
        if (openJournals.get(this.#file) === this) openJournals.delete(this.#file);
        await this.#lock.release();
      }
    }
  }

  async #fsync(): Promise<void> {
    try {
      await this.#handle.sync();
    } catch (error) {
      throw ioError(this.id, "fsync", error);
    }
  }

  async #needsNewline(): Promise<boolean> {
    if (!this.#mayBeTorn) return false;
    try {
      const { bytes } = await readFileTail(this.#file, 1);
      return bytes.length === 1 && bytes[0] !== 0x0a;
    } catch (error) {
      throw ioError(this.id, "append to", error);
    }
  }

  /** Runs `step` after every earlier one; a failed step fails only its own caller. */
  #enqueue(step: () => Promise<void>): Promise<void> {
    const result = this.#chain.then(step);
    this.#chain = result.catch(() => undefined);
    return result;
  }
}
