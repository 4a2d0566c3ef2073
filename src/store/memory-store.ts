/**
 * The store for `--no-session`: the JSONL store's behaviour held in maps,
 * nothing on disk. Entries are copied through JSON on the way in and out,
 * so callers see exactly what a file would have given back.
 * @module
 */
import { makeDirectory, removeTree } from "../runtime/files/fs.ts";
import { join } from "../runtime/files/path.ts";
import { processTempDirectory } from "../runtime/process/process-temp.ts";
import { entryLine } from "./entry-line.ts";
import { pageOf } from "./list-cursor.ts";
import { assertSessionId, isValidSessionId } from "./session-id.ts";
import { titleOf } from "./session-title.ts";
import {
  STORE_FORMAT_VERSION,
  StoreError,
  type LoadedSession,
  type SessionHeader,
  type SessionJournal,
  type SessionStore,
  type StoredEntry,
} from "./types.ts";

interface MemorySession {
  header: SessionHeader;
  /** Entries as read back from the lines a file would hold. */
  entries: StoredEntry[];
  updatedAt: string;
  archived?: boolean;
  journal?: SessionJournal;
}

/** A store that forgets everything when the process ends. */
export function createMemoryStore(): SessionStore {
  const sessions = new Map<string, MemorySession>();
  /** Session id → its directory in the process temp area, once one was made. */
  const outputDirectories = new Map<string, string>();

  function journalFor(session: MemorySession): SessionJournal {
    let closed = false;
    const journal: SessionJournal = {
      id: session.header.id,
      async append(entry: StoredEntry) {
        if (closed) throw new StoreError("io", `session ${journal.id} is closed; open it again to append`);
        const stored = JSON.parse(entryLine(entry)) as StoredEntry;
        if (sessions.get(journal.id) !== session) {
          throw new StoreError("not_found", `session ${journal.id} was deleted; the entry was not stored`);
        }
        session.entries.push(stored);
        session.updatedAt = new Date().toISOString();
      },
      async sync() {},
      async close() {
        if (closed) return;
        closed = true;
        if (session.journal === journal) delete session.journal;
      },
    };
    session.journal = journal;
    return journal;
  }

  function find(id: string): MemorySession {
    assertSessionId(id);
    const session = sessions.get(id);
    if (!session) throw new StoreError("not_found", `session ${id} not found`);
    return session;
  }

  function loaded(session: MemorySession): LoadedSession {
    return {
      header: structuredClone(session.header),
      entries: structuredClone(session.entries),
      warnings: [],
    };
  }

  return {
    async create(input) {
      assertSessionId(input.id);
      if (sessions.has(input.id)) throw new StoreError("io", `session ${input.id} already exists; session ids must be new`);
      const createdAt = new Date().toISOString();
      const header: SessionHeader = {
        type: "session",
        version: STORE_FORMAT_VERSION,
        id: input.id,
        cwd: input.cwd,
        additionalDirectories: [...input.additionalDirectories],
        createdAt,
        ...(input.forkedFrom === undefined ? {} : { forkedFrom: input.forkedFrom }),
      };
      const session: MemorySession = { header, entries: [], updatedAt: createdAt };
      sessions.set(input.id, session);
      return journalFor(session);
    },

    async open(id) {
      const session = find(id);
      if (session.journal) {
        throw new StoreError("locked", `session ${id} is already open in this process; use the open session instead of opening it again`);
      }
      return { ...loaded(session), journal: journalFor(session) };
    },

    async read(id) {
      return loaded(find(id));
    },

    async header(id) {
      return loaded(find(id)).header;
    },

    async list(options = {}) {
      const summaries = [...sessions.values()].map((s) => {
        const title = titleOf(s.entries);
        return {
          id: s.header.id,
          cwd: s.header.cwd,
          additionalDirectories: [...s.header.additionalDirectories],
          ...(title === undefined ? {} : { title }),
          createdAt: s.header.createdAt,
          updatedAt: s.updatedAt,
          archived: s.archived === true,
        };
      });
      return pageOf(summaries, options);
    },

    async setArchived(id, archived) {
      // Nothing here is shared with another process, so nothing can refuse.
      find(id).archived = archived;
    },

    async delete(id) {
      assertSessionId(id);
      // Nothing here is shared with another process, so nothing can refuse.
      sessions.delete(id);
      const outputs = outputDirectories.get(id);
      outputDirectories.delete(id);
      if (outputs) await removeTree(outputs);
    },

    async outputDirectory(id) {
      find(id);
      // Nothing of a memory session outlives the process: its files go in the process's temp area, removed at exit.
      const outputs = join(processTempDirectory(), id);
      await makeDirectory(outputs, 0o700);
      outputDirectories.set(id, outputs);
      return outputs;
    },

    async exists(id) {
      return isValidSessionId(id) && sessions.has(id);
    },
  };
}
