/**
 * The session store on disk: `<dir>/<cwd-slug>/<sessionId>.jsonl`, a header
 * line then one entry per line, append-only, with a `.lock` file beside each
 * session that is open. Directories are 0700 and files 0600: sessions hold
 * everything the user and the model said. See docs/storage.md.
 * @module
 */
import {
  createExclusive,
  errorCode,
  isNotFound,
  makeDirectory,
  openAppend,
  readDir,
  readFileHead,
  readTextFile,
  removeFile,
  removeTree,
  statOrUndefined,
  syncDirectoryEntries,
} from "../runtime/files/fs.ts";
import { dirname, join } from "../runtime/files/path.ts";
import { redactValue } from "../runtime/secrets.ts";
import { archiveMarkerOf, writeArchiveMarker } from "./archive-marker.ts";
import { cwdSlug } from "./cwd-slug.ts";
import { parseHeader, parseJournal } from "./journal-reader.ts";
import { JsonlJournal, openJournalOf } from "./jsonl-journal.ts";
import { pageOfSorted } from "./list-cursor.ts";
import { createListIndex, type ListIndexSettings } from "./list-index.ts";
import { SortedSummaries } from "./sorted-summaries.ts";
import { checkLockTimings, lockSettings, type LockSettings } from "./lock-record.ts";
import { acquireSessionLock, inspectLock, ioError, lockedError } from "./session-lock.ts";
import { assertSessionId, isValidSessionId } from "./session-id.ts";
import {
  STORE_FORMAT_VERSION,
  StoreError,
  type LoadedSession,
  type SessionHeader,
  type SessionJournal,
  type SessionStore,
  type SessionSummary,
} from "./types.ts";

const SUFFIX = ".jsonl";
/** `<id>.outputs/` beside `<id>.jsonl`: the session's saved command output. */
const OUTPUTS_SUFFIX = ".outputs";

function outputsOf(file: string): string {
  return `${file.slice(0, -SUFFIX.length)}${OUTPUTS_SUFFIX}`;
}

/** Options of the JSONL store. */
export interface JsonlStoreOptions {
  /** Who this store's locks name and how their heartbeat runs; defaults describe this process (tests inject hosts, pids, timings). */
  lock?: Partial<LockSettings>;
  /** How `list` caches summaries; defaults suit every file system (tests narrow the racy window). */
  listIndex?: Partial<ListIndexSettings>;
}

/** Bytes of a session file read for its header alone; the header is one line, far shorter in practice. */
const HEADER_WINDOW_BYTES = 64 * 1024;

/** The JSONL store rooted at `dir` (created on first `create`). */
export function createJsonlStore(dir: string, options: JsonlStoreOptions = {}): SessionStore {
  checkLockTimings(options.lock);
  // Resolved at the first lock: this process's host identity and instance id cost file reads and the crypto module, which start-up need not pay.
  let lockSettingsOnce: LockSettings | undefined;
  const locks = () => (lockSettingsOnce ??= lockSettings(options.lock));
  /** Where each id was last found: ids never move, but a cached path is checked before use. */
  const known = new Map<string, string>();
  const index = createListIndex(options.listIndex);
  const sorted = new SortedSummaries();

  async function findFile(id: string): Promise<string | undefined> {
    const cached = known.get(id);
    if (cached && (await statOrUndefined(cached))?.isFile) return cached;
    known.delete(id);
    for (const folder of await sessionFolders()) {
      const file = join(folder, `${id}${SUFFIX}`);
      if ((await statOrUndefined(file))?.isFile) {
        known.set(id, file);
        return file;
      }
    }
    return undefined;
  }

  async function sessionFolders(): Promise<string[]> {
    try {
      return (await readDir(dir)).filter((e) => e.isDirectory).map((e) => join(dir, e.name));
    } catch (error) {
      if (isNotFound(error)) return [];
      throw new StoreError("io", `cannot read the session directory ${dir}: ${(error as Error).message}`);
    }
  }

  async function requireFile(id: string): Promise<string> {
    const file = await findFile(id);
    if (!file) throw notFound(id);
    return file;
  }

  async function readSession(id: string, file: string) {
    let text: string;
    try {
      text = await readTextFile(file);
    } catch (error) {
      if (isNotFound(error)) throw notFound(id);
      throw ioError(id, "read", error);
    }
    return parseJournal(text, file, id);
  }

  return {
    async create(input): Promise<SessionJournal> {
      assertSessionId(input.id);
      const id = input.id;
      if (await findFile(id)) throw new StoreError("io", `session ${id} already exists; session ids must be new`);
      const folder = join(dir, cwdSlug(input.cwd));
      const file = join(folder, `${id}${SUFFIX}`);
      try {
        await makeDirectory(folder, 0o700);
      } catch (error) {
        throw ioError(id, "create", error);
      }
      const lock = await acquireSessionLock(`${file}.lock`, id, locks());
      try {
        const header: SessionHeader = {
          type: "session",
          version: STORE_FORMAT_VERSION,
          id,
          cwd: input.cwd,
          additionalDirectories: [...input.additionalDirectories],
          createdAt: new Date().toISOString(),
          ...(input.forkedFrom === undefined ? {} : { forkedFrom: input.forkedFrom }),
        };
        await createExclusive(file, `${JSON.stringify(redactValue(header))}\n`, 0o600);
        // The new name (and a new cwd folder) must survive a crash as well as the bytes.
        await syncDirectoryEntries(folder);
        await syncDirectoryEntries(dirname(folder));
        const handle = await openAppend(file, 0o600);
        known.set(id, file);
        return new JsonlJournal(id, file, handle, lock, true);
      } catch (error) {
        await lock.release().catch(() => undefined);
        if (errorCode(error) === "EEXIST") throw new StoreError("io", `session ${id} already exists; session ids must be new`);
        throw error instanceof StoreError ? error : ioError(id, "create", error);
      }
    },

    async open(id) {
      assertSessionId(id);
      const file = await requireFile(id);
      const lock = await acquireSessionLock(`${file}.lock`, id, locks());
      try {
        const { endsWithNewline, ...session } = await readSession(id, file);
        const handle = await openAppend(file, 0o600);
        return { ...session, journal: new JsonlJournal(id, file, handle, lock, endsWithNewline) };
      } catch (error) {
        await lock.release().catch(() => undefined);
        throw error instanceof StoreError ? error : ioError(id, "open", error);
      }
    },

    async read(id): Promise<LoadedSession> {
      assertSessionId(id);
      const { endsWithNewline: _, ...session } = await readSession(id, await requireFile(id));
      return session;
    },

    async header(id) {
      assertSessionId(id);
      const file = await requireFile(id);
      let head: Uint8Array;
      try {
        head = await readFileHead(file, HEADER_WINDOW_BYTES);
      } catch (error) {
        if (isNotFound(error)) throw notFound(id);
        throw ioError(id, "read", error);
      }
      const text = new TextDecoder().decode(head);
      const newline = text.indexOf("\n");
      // A header longer than the window (thousands of extra directories), or one of another id, is judged by the full reader.
      const header = newline < 0 ? undefined : parseHeader(text.slice(0, newline), file);
      return header?.id === id ? header : (await readSession(id, file)).header;
    },

    async list(options = {}) {
      // A cwd's sessions live in its slug's folder: a filtered list reads only that one.
      const folders = options.cwd === undefined ? await sessionFolders() : [join(dir, cwdSlug(options.cwd))];
      if (options.cwd === undefined) index.retainOnly(new Set(folders));
      const parts: Array<readonly SessionSummary[]> = [];
      for (const folder of folders) parts.push(await index.summariesOf(folder));
      const page = pageOfSorted(sorted.of(options.cwd === undefined ? "" : folders[0] as string, parts), options);
      // Copies: the index keeps the originals.
      return { ...page, sessions: page.sessions.map((s) => ({ ...s, additionalDirectories: [...s.additionalDirectories] })) };
    },

    async delete(id) {
      assertSessionId(id);
      const file = await findFile(id);
      if (!file) return;
      const lockPath = `${file}.lock`;
      const state = await inspectLock(lockPath, locks());
      if (state.kind === "other") throw lockedError(id, state);
      // Open in this process: the caller is closing it; its journal refuses further appends.
      const lock = state.kind === "own" ? undefined : await acquireSessionLock(lockPath, id, locks());
      try {
        await removeFile(file);
        openJournalOf(file)?.markDeleted();
        await removeTree(outputsOf(file));
        await removeFile(archiveMarkerOf(file));
        known.delete(id);
        if (!lock) await removeFile(lockPath);
        await syncDirectoryEntries(dirname(file));
      } catch (error) {
        throw ioError(id, "delete", error);
      } finally {
        await lock?.release();
      }
    },

    async setArchived(id, archived) {
      assertSessionId(id);
      const file = await requireFile(id);
      if (archived) {
        // Archiving ends a session's work: one that another process is running cannot be archived from here.
        const state = await inspectLock(`${file}.lock`, locks());
        if (state.kind === "other") throw lockedError(id, state);
      }
      try {
        await writeArchiveMarker(file, archived);
      } catch (error) {
        throw ioError(id, archived ? "archive" : "unarchive", error);
      }
    },

    async exists(id) {
      return isValidSessionId(id) && (await findFile(id)) !== undefined;
    },

    async outputDirectory(id) {
      assertSessionId(id);
      const outputs = outputsOf(await requireFile(id));
      try {
        await makeDirectory(outputs, 0o700);
      } catch (error) {
        throw ioError(id, "create the output directory of", error);
      }
      return outputs;
    },
  };
}

function notFound(id: string): StoreError {
  return new StoreError("not_found", `session ${id} not found`);
}
