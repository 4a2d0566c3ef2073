/**
 * What `list` knows about each session folder, so a page does not re-read
 * the head and tail of every session file: per file, the summary and the
 * size, mtime, ctime and inode it was made from, kept in memory and in the
 * folder's index file (list-index-file.ts) so it survives restarts.
 *
 * The files stay the source of truth. Every call lists the folder (or keeps
 * the last listing while the folder's own key shows no file was created,
 * removed or renamed in it) and stats every session file in it, since a file
 * can be appended to without its folder changing; a file is read again when anything of its key
 * changed (appended, rewritten, replaced) or when it changed so shortly
 * before it was last read that a later change could have kept the same
 * timestamps ("racy", as in git's index). Entries whose file is gone are
 * dropped, files not in the index are read. A stale, damaged or lost index
 * only costs reading the files again.
 * @module
 */
import { fileVersionSync, isNotFound, readDirSync, readTextFile, removeFile, replaceFileUnsynced, stat, type FileVersion } from "../runtime/files/fs.ts";
import { join, sep } from "../runtime/files/path.ts";
import { ARCHIVED_SUFFIX } from "./archive-marker.ts";
import { readSessionSummary } from "./jsonl-summary.ts";
import { LIST_INDEX_NAME, MAX_INDEX_FILE_BYTES, parseIndex, serialiseIndex, type FileKey, type IndexEntry } from "./list-index-file.ts";
import { isValidSessionId } from "./session-id.ts";
import type { SessionSummary } from "./types.ts";

const SUFFIX = ".jsonl";
/** Files read at once when summaries must be made. */
const READ_CONCURRENCY = 32;
/** Files stat-ed between two yields to the event loop (a synchronous stat is far cheaper per file, but blocks). */
const STAT_BATCH = 2000;
/** A file changed less than this before it was read may change again with the same timestamps (coarse clocks, FAT's 2 s). */
export const DEFAULT_RACY_MS = 3000;
/** The index file is rewritten once this many entries changed since it was last written or read. */
const WRITE_AFTER_CHANGES = 16;
/** A summary bigger than this (a huge title or cwd) is not kept, only listed: bounds the cache per session. */
const MAX_CACHED_SUMMARY_CHARS = 16 * 1024;
/** Temporary index files left by a crashed writer are removed after this long. */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;
const TEMPORARY_NAME = new RegExp(`^\\.${LIST_INDEX_NAME.replace(/\./g, "\\.")}\\.[0-9a-f]{12}\\.tmp$`);

/** The summaries of session folders, cached; one per store. */
export interface ListIndex {
  /** The summary of every listable session file in `folder` now; the same array as last time when nothing changed. */
  summariesOf(folder: string): Promise<readonly SessionSummary[]>;
  /** Forgets folders not in `present` (they were removed). */
  retainOnly(present: ReadonlySet<string>): void;
}

/** A folder's session files: ids and their paths, in the same order, and the ids whose archive marker is there. */
interface Listing {
  ids: string[];
  files: string[];
  archived: ReadonlySet<string>;
}

type DiskState = "unread" | "missing" | "invalid" | "valid" | "newer";

interface FolderState {
  entries: Map<string, IndexEntry>;
  disk: DiskState;
  /** Entries added, changed or dropped since the index file was last read or written. */
  changes: number;
  /** The last answer, reused while nothing changes (lets callers keep their sorted copy). */
  answer: readonly SessionSummary[];
  /** The folder's session files as last read, and the folder's key then. */
  listing?: Listing & { key: FileKey; checkedAt: number };
  /** Whether `answer` was made from `entries` yet. */
  answered?: boolean;
  /** Calls on one folder run one after another. */
  queue: Promise<unknown>;
}

/** Settings of the list index (tests narrow the racy window to see the cache at work). */
export interface ListIndexSettings {
  /** How long after its last change a file is read again on every call even when its key is unchanged. */
  racyMs: number;
}

/** A list index for the folders of one session directory. */
export function createListIndex(settings: Partial<ListIndexSettings> = {}): ListIndex {
  const racyMs = settings.racyMs ?? DEFAULT_RACY_MS;
  const folders = new Map<string, FolderState>();

  return {
    summariesOf(folder) {
      let state = folders.get(folder);
      if (!state) {
        state = { entries: new Map(), disk: "unread", changes: 0, answer: [], queue: Promise.resolve() };
        folders.set(folder, state);
      }
      const current = state;
      const run = current.queue.then(async () => {
        const answer = await refresh(folder, current, racyMs);
        // Nothing kept for folders that do not exist: a stream of made-up cwds costs no memory.
        if (current.disk === "unread" && folders.get(folder) === current) folders.delete(folder);
        return answer;
      });
      current.queue = run.catch(() => undefined);
      return run;
    },
    retainOnly(present) {
      for (const folder of [...folders.keys()]) if (!present.has(folder)) folders.delete(folder);
    },
  };
}

async function refresh(folder: string, state: FolderState, racyMs: number): Promise<readonly SessionSummary[]> {
  if (state.disk === "unread") await loadIndexFile(folder, state);
  const startedAt = Date.now();
  const listing = await currentListing(folder, state, racyMs, startedAt);
  if (!listing) {
    // The folder is gone (or not a folder): nothing to list, nothing to keep; start afresh if it comes back.
    state.entries.clear();
    state.answer = [];
    state.answered = false;
    state.disk = "unread";
    state.changes = 0;
    return state.answer;
  }
  // The first answer is always made (entries may have come from the index file).
  let changed = state.answered !== true;
  if (listing.fresh) {
    const present = new Set(listing.ids);
    for (const id of [...state.entries.keys()]) {
      if (!present.has(id)) {
        state.entries.delete(id);
        state.changes++;
        changed = true;
      }
    }
  }
  const unchecked = new Set<string>();
  const toRead: Array<{ id: string; file: string; version: FileVersion; archived: boolean }> = [];
  for (let i = 0; i < listing.ids.length; i++) {
    if (i > 0 && i % STAT_BATCH === 0) await yieldToEventLoop();
    const id = listing.ids[i] as string;
    const file = listing.files[i] as string;
    let version: FileVersion | undefined;
    try {
      version = fileVersionSync(file);
    } catch {
      // Cannot be checked now (permissions, I/O): left out of this answer, its entry kept.
      unchecked.add(id);
      changed = true;
      continue;
    }
    let entry = state.entries.get(id);
    const archived = listing.archived.has(id);
    if (entry?.summary && entry.summary.archived !== archived) {
      // Archived or taken out of the archive since: the marker decides, the journal need not be read again.
      entry = { ...entry, summary: { ...entry.summary, archived } };
      state.entries.set(id, entry);
      state.changes++;
      changed = true;
    }
    if (!version?.isFile) {
      // Gone since the folder was listed.
      if (entry) {
        state.entries.delete(id);
        state.changes++;
        changed = true;
      }
      continue;
    }
    if (entry && sameKey(entry, version, racyMs) && !isRacy(entry, racyMs)) continue;
    toRead.push({ id, file, version, archived });
  }

  const uncached: SessionSummary[] = [];
  for (let i = 0; i < toRead.length; i += READ_CONCURRENCY) {
    await Promise.all(
      toRead.slice(i, i + READ_CONCURRENCY).map(async ({ id, file, version, archived }) => {
        changed = true;
        let summary: SessionSummary | null;
        try {
          const read = await readSessionSummary(file, id, version);
          summary = read && { ...read, archived };
        } catch {
          // Vanished since the stat, or unreadable now: left out of this answer, read again next time.
          state.entries.delete(id);
          return;
        }
        const entry: IndexEntry = { id, ...keyOf(version), checkedAt: startedAt, summary };
        state.changes++;
        if (summary && summarySize(summary) > MAX_CACHED_SUMMARY_CHARS) {
          state.entries.delete(id);
          uncached.push(summary);
        } else {
          state.entries.set(id, entry);
        }
      }),
    );
  }

  if (changed || uncached.length > 0) {
    const answer: SessionSummary[] = [...uncached];
    for (const entry of state.entries.values()) if (entry.summary && !unchecked.has(entry.id)) answer.push(entry.summary);
    state.answer = answer;
    state.answered = true;
  }
  if (shouldWrite(state)) await writeIndexFile(folder, state);
  return state.answer;
}

/**
 * The session files of a folder: read again when the folder's own key
 * changed (a file was created, removed or renamed in it) or changed too
 * recently to trust; otherwise the last listing. Undefined when the folder is gone.
 */
async function currentListing(folder: string, state: FolderState, racyMs: number, now: number): Promise<(Listing & { fresh: boolean }) | undefined> {
  let version: FileVersion | undefined;
  try {
    version = fileVersionSync(folder);
  } catch {
    version = undefined;
  }
  const last = state.listing;
  if (version && last && sameKey(last.key, version, racyMs) && last.checkedAt - Math.max(last.key.mtimeMs, last.key.ctimeMs) > racyMs) {
    return { ...last, fresh: false };
  }
  const listing = await sessionFilesOf(folder);
  if (!listing || !version) {
    state.listing = undefined;
    return undefined;
  }
  await removeStaleTemporaries(folder, listing.temporaries);
  state.listing = { ...listing, key: keyOf(version), checkedAt: now };
  return { ...state.listing, fresh: true };
}

/** The session ids whose files a folder holds (with their paths), those archived, and leftover temporary index files; undefined when it cannot be listed. */
async function sessionFilesOf(folder: string): Promise<(Listing & { temporaries: string[] }) | undefined> {
  let names;
  try {
    names = readDirSync(folder);
  } catch {
    // Gone, not a folder, or not readable: nothing in it can be listed (as before the index).
    return undefined;
  }
  const ids: string[] = [];
  const files: string[] = [];
  const temporaries: string[] = [];
  const archived = new Set<string>();
  const prefix = `${folder}${sep}`;
  for (const entry of names) {
    if (entry.isFile && entry.name.endsWith(SUFFIX)) {
      const id = entry.name.slice(0, -SUFFIX.length);
      if (isValidSessionId(id)) {
        ids.push(id);
        files.push(`${prefix}${entry.name}`);
      }
    } else if (entry.isFile && entry.name.endsWith(ARCHIVED_SUFFIX)) {
      // Only a regular file is a marker (a link or folder of that name is not); one without its journal is ignored.
      archived.add(entry.name.slice(0, -ARCHIVED_SUFFIX.length));
    } else if (entry.isFile && TEMPORARY_NAME.test(entry.name)) {
      temporaries.push(entry.name);
    }
  }
  return { ids, files, archived, temporaries };
}

async function loadIndexFile(folder: string, state: FolderState): Promise<void> {
  const path = join(folder, LIST_INDEX_NAME);
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile || info.size > MAX_INDEX_FILE_BYTES) {
      state.disk = "invalid";
      return;
    }
    text = await readTextFile(path);
  } catch (error) {
    state.disk = isNotFound(error) ? "missing" : "invalid";
    return;
  }
  const content = parseIndex(text);
  if (content.kind !== "entries") {
    state.disk = content.kind;
    return;
  }
  for (const entry of content.entries) state.entries.set(entry.id, entry);
  state.disk = "valid";
  state.changes = 0;
}

function shouldWrite(state: FolderState): boolean {
  switch (state.disk) {
    case "newer":
      // Left to the release that wrote it; this one keeps its cache in memory only.
      return false;
    case "missing":
      return state.entries.size > 0;
    case "invalid":
      return true;
    default:
      return state.changes >= WRITE_AFTER_CHANGES;
  }
}

async function writeIndexFile(folder: string, state: FolderState): Promise<void> {
  try {
    await replaceFileUnsynced(join(folder, LIST_INDEX_NAME), serialiseIndex(state.entries.values()), 0o600);
    state.disk = "valid";
    state.changes = 0;
  } catch {
    // A read-only or vanished folder: the index stays in memory; the files still answer.
  }
}

/** Removes temporary index files a crashed writer left (a live writer renames its own within milliseconds). */
async function removeStaleTemporaries(folder: string, names: string[]): Promise<void> {
  for (const name of names) {
    const path = join(folder, name);
    try {
      const version = fileVersionSync(path);
      if (version && Date.now() - version.mtimeMs > STALE_TEMPORARY_MS) await removeFile(path);
    } catch {
      // Best effort: another process may have removed it first.
    }
  }
}

function keyOf(version: FileVersion): FileKey {
  return { size: version.size, mtimeMs: version.mtimeMs, ctimeMs: version.ctimeMs, ino: version.ino };
}

/**
 * Whether a file is as a key recorded it. The ctime is compared in whole
 * seconds (Deno reports no more, and an index may come from another runtime)
 * when the racy window is at least a second: a file is trusted only once its
 * ctime is older than the window, so a later change lands in a later second.
 */
function sameKey(a: FileKey, b: FileKey, racyMs: number): boolean {
  if (a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.ino !== b.ino) return false;
  return racyMs >= 1000 ? Math.floor(a.ctimeMs / 1000) === Math.floor(b.ctimeMs / 1000) : a.ctimeMs === b.ctimeMs;
}

/** Read so soon after its last change that another change may have kept size and timestamps: read it again. */
function isRacy(entry: IndexEntry, racyMs: number): boolean {
  return entry.checkedAt - Math.max(entry.mtimeMs, entry.ctimeMs) <= racyMs;
}

function summarySize(summary: SessionSummary): number {
  let size = summary.id.length + summary.cwd.length + summary.createdAt.length + (summary.title?.length ?? 0);
  for (const directory of summary.additionalDirectories) size += directory.length;
  return size;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
