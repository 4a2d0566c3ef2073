/**
 * The store layer's types (the same idea as `types.ts` in models/ and tools/: a layer's contract).
 * The session store's contract. The store is generic: it knows sessions,
 * headers and entries with a string `type`, never engine or ACP types (the
 * sessions layer defines the payloads). Both stores (JSONL on disk, in memory)
 * implement it and pass the same conformance suite.
 * @module
 */

/** The on-disk format this version writes and the newest it reads. */
export const STORE_FORMAT_VERSION = 1;

/** Line 1 of a session file. */
export interface SessionHeader {
  type: "session";
  version: number;
  id: string;
  cwd: string;
  additionalDirectories: string[];
  createdAt: string;
  /** The session this one was forked from. */
  forkedFrom?: string;
}

/** One line after the header. `at` is an ISO timestamp added by the journal. */
export interface StoredEntry {
  type: string;
  at?: string;
  [key: string]: unknown;
}

/** What `list` says about a session without reading all of it. */
export interface SessionSummary {
  id: string;
  cwd: string;
  additionalDirectories: string[];
  title?: string;
  createdAt: string;
  updatedAt: string;
  /** Archived sessions are left out of `list` unless asked for (see `ArchiveFilter`). */
  archived: boolean;
}

/** Which sessions `list` returns by their archived flag: not archived (the default), all, or only archived ones. */
export type ArchiveFilter = "exclude" | "include" | "only";

/** What `list` is asked for. */
export interface ListOptions {
  /** Only sessions of this cwd (exact). */
  cwd?: string;
  cursor?: string;
  /** Page size (default 50). */
  limit?: number;
  /** Default `exclude`: archived sessions are left out. */
  archived?: ArchiveFilter;
}

/** A whole session as read back. */
export interface LoadedSession {
  header: SessionHeader;
  entries: StoredEntry[];
  /** Human-readable notes about damage that was skipped (e.g. "line 17 was not valid JSON and was skipped"). */
  warnings: string[];
}

/** The append side of one open session; the only writer while it holds the session's lock. */
export interface SessionJournal {
  readonly id: string;
  /** Appends one entry (adds `at`). With `{ sync: true }` the data is fsynced before the promise resolves. */
  append(entry: StoredEntry, options?: { sync?: boolean }): Promise<void>;
  /** Waits for every earlier append, then fsyncs. */
  sync(): Promise<void>;
  /** Flushes, fsyncs and releases the lock. Idempotent. */
  close(): Promise<void>;
}

/** Where sessions live: create, load, list and delete them. */
export interface SessionStore {
  /** Creates a new session (writes the header, fsynced) and holds its lock. */
  create(header: { id: string; cwd: string; additionalDirectories: string[]; forkedFrom?: string }): Promise<SessionJournal>;
  /** Reads a session and takes its lock for appending (load/resume). */
  open(id: string): Promise<LoadedSession & { journal: SessionJournal }>;
  /** Reads a session without locking (fork, inspection). */
  read(id: string): Promise<LoadedSession>;
  /** Reads only a session's header, however long its conversation (checks such as a WebSocket upgrade's). */
  header(id: string): Promise<SessionHeader>;
  /** Newest first by updatedAt; `cwd` and `archived` filter before paging; pages of `limit` (default 50); `nextCursor` when more remain. */
  list(options?: ListOptions): Promise<{ sessions: SessionSummary[]; nextCursor?: string }>;
  /**
   * Archives a session or takes it out of the archive (durable when this resolves); idempotent.
   * Unknown id: StoreError("not_found"). Archiving a session open (locked) in ANOTHER live process is refused with StoreError("locked").
   */
  setArchived(id: string, archived: boolean): Promise<void>;
  /** Idempotent; a session that is open (locked) in ANOTHER live process is refused with StoreError("locked"). */
  delete(id: string): Promise<void>;
  /** Whether a session with this id exists. */
  exists(id: string): Promise<boolean>;
  /**
   * A private directory (0700) for files that belong to the session, such as
   * full command output; made on first call, removed by `delete`.
   */
  outputDirectory(id: string): Promise<string>;
}

/** Why a store operation failed. */
export type StoreErrorCode = "not_found" | "locked" | "newer_format" | "corrupt" | "invalid_cursor" | "io";

/** A store failure with a message meant for users. */
export class StoreError extends Error {
  override name = "StoreError";
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
