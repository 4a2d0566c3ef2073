/**
 * The files the agent changed from one user message on, read from the
 * session's journal: every completed `write` and `edit` (on the local disk or
 * through the editor's `fs/write_text_file`) records its diff with the whole
 * text before and after. For each file this keeps the text before the first
 * change (null: the agent created it) and the text the agent left last.
 * Changes already undone (a `files_rewound` entry) and changes a rewind took
 * out of the conversation are not counted again.
 * @module
 */
import type { StoredEntry } from "../../store/types.ts";
import type { SessionEntry } from "../journal/session-entries.ts";
import { entryProblem } from "../journal/session-entry-schemas.ts";
import { positionsBefore, rewoundPositions } from "../journal/rewound-entries.ts";

/** One file the agent changed, and what it can be put back to. */
export type FileChange =
  | { path: string; kind: "text"; before: string | null; after: string }
  /** A change with no text kept (e.g. a file too large to diff): it cannot be put back. */
  | { path: string; kind: "unkept"; reason: string };

/** Tools whose results carry the whole text of the file before and after. */
const FILE_TOOLS = new Set(["write", "edit"]);

/** The files changed from the `from`-th `message` entry on, in the order they were first changed. */
export function fileChangesSince(stored: readonly StoredEntry[], from: number): FileChange[] {
  const skipped = new Set([...rewoundPositions(stored), ...positionsBefore(stored, "files_rewound")]);
  const calls = new Map<string, Extract<SessionEntry, { type: "tool_call" }>>();
  const changes = new Map<string, FileChange>();
  let messages = -1;
  stored.forEach((raw, position) => {
    if (raw.type === "message") messages += 1;
    if (messages < from || skipped.has(position) || entryProblem(raw) !== undefined) return;
    const entry = raw as unknown as SessionEntry;
    if (entry.type === "tool_call") calls.set(entry.toolCallId, entry);
    if (entry.type !== "tool_result" || entry.status !== "completed") return;
    const call = calls.get(entry.toolCallId);
    if (entry.diff) {
      const { path, oldText, newText } = entry.diff;
      const known = changes.get(path);
      if (known?.kind === "unkept") return;
      changes.set(path, { path, kind: "text", before: known?.kind === "text" ? known.before : oldText, after: newText });
    } else if (call && FILE_TOOLS.has(call.toolName)) {
      const path = entry.locations?.[0]?.path ?? call.locations[0]?.path;
      if (path !== undefined) changes.set(path, { path, kind: "unkept", reason: "the change was too large to keep its text" });
    }
  });
  return [...changes.values()];
}
