/**
 * Reading a journal's entries back through their schemas: an entry of one of
 * our types with the wrong shape is skipped with a notice (it would
 * otherwise throw deep inside a restore and make the whole session
 * unloadable), every intact entry is kept, and entries of types a newer
 * release wrote are passed over untouched.
 * @module
 */
import type { StoredEntry } from "../../store/types.ts";
import type { SessionEntry } from "./session-entries.ts";
import { configValues, entryProblem, isKnownEntryType } from "./session-entry-schemas.ts";

/** One stored entry after checking: the entry when it is intact and ours, and notices about what was dropped. */
export interface CheckedEntry {
  /** The intact entry; undefined when it was damaged or is of a type we do not know. */
  entry?: SessionEntry;
  /** Whether the entry was skipped as damaged (an entry of an unknown type is not damaged, only not ours). */
  damaged: boolean;
  /** Whether a damaged entry was a message (compaction counts messages, damaged ones included). */
  damagedMessage: boolean;
  notices: string[];
}

/** Checks one entry; `position` (1 = the first entry after the header) names it in notices. */
export function checkEntry(stored: StoredEntry, position: number): CheckedEntry {
  const problem = entryProblem(stored);
  if (problem !== undefined) {
    const notice = `${describe(stored, position)} was damaged (${problem}) and was skipped`;
    return { damaged: true, damagedMessage: stored.type === "message", notices: [notice] };
  }
  if (!isKnownEntryType(stored.type)) return { damaged: false, damagedMessage: false, notices: [] };
  if (stored.type === "config") {
    const { values, notices } = configValues(stored);
    const entry: SessionEntry = { type: "config", ...values };
    return { entry, damaged: false, damagedMessage: false, notices: notices.map((n) => `${describe(stored, position)}: ${n}`) };
  }
  return { entry: stored as unknown as SessionEntry, damaged: false, damagedMessage: false, notices: [] };
}

/** The entries worth copying into a fork: all but the damaged ones (entries of unknown types included). */
export function undamagedEntries(stored: readonly StoredEntry[]): StoredEntry[] {
  return stored.filter((entry, index) => !checkEntry(entry, index + 1).damaged);
}

/** The intact entries of acp-edge's own types, in order (for replays, where notices were already given). */
export function intactEntries(stored: readonly StoredEntry[]): SessionEntry[] {
  const out: SessionEntry[] = [];
  stored.forEach((entry, index) => {
    const checked = checkEntry(entry, index + 1);
    if (checked.entry) out.push(checked.entry);
  });
  return out;
}

function describe(entry: StoredEntry, position: number): string {
  const id = typeof entry.messageId === "string" ? entry.messageId : typeof entry.toolCallId === "string" ? entry.toolCallId : undefined;
  return `entry ${position} (${entry.type}${id ? ` ${JSON.stringify(id.slice(0, 80))}` : ""})`;
}
