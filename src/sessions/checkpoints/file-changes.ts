/**
 * The files the agent changed from one user message on, read from the
 * session's journal: every completed `write` and `edit` (on the local disk or
 * through the editor's `fs/write_text_file`) records its diff with the whole
 * text before and after, and every command records the files it created,
 * changed or deleted (`command_files`, copies kept in the checkpoint store).
 * For each file this keeps its content before the first change (null: absent)
 * and the content the agent left last. A command's changes count from the
 * prompt whose turn made its call, wherever they are recorded (a background
 * command's are recorded when it ends, maybe during a later prompt). Changes already undone (a
 * `files_rewound` entry) and changes a rewind took out of the conversation
 * are not counted again.
 * @module
 */
import type { StoredEntry } from "../../store/types.ts";
import type { SessionEntry } from "../journal/session-entries.ts";
import { entryProblem } from "../journal/session-entry-schemas.ts";
import { positionsBefore, rewoundPositions } from "../journal/rewound-entries.ts";

/** A file's content as the journal knows it: its text, or the id of a kept copy. */
export type Version = { text: string } | { id: string };

/** One file the agent changed, and what it can be put back to. */
export type FileChange =
  /** `before`/`after` null: the file was absent. */
  | { path: string; kind: "kept"; before: Version | null; after: Version | null }
  /** A change with no content kept (a file too large to keep, a full store): it cannot be put back. */
  | { path: string; kind: "unkept"; reason: string };

/** Tools whose results carry the whole text of the file before and after. */
const FILE_TOOLS = new Set(["write", "edit"]);

/** The files changed from the `from`-th `message` entry on, in the order they were first changed. */
export function fileChangesSince(stored: readonly StoredEntry[], from: number): FileChange[] {
  const skipped = new Set([...rewoundPositions(stored), ...positionsBefore(stored, "files_rewound")]);
  const calls = new Map<string, Extract<SessionEntry, { type: "tool_call" }>>();
  const changes = new Map<string, FileChange>();
  const change = (path: string, before: Version | null, after: Version | null) => {
    const known = changes.get(path);
    if (known?.kind === "unkept") return;
    changes.set(path, { path, kind: "kept", before: known ? known.before : before, after });
  };
  const unkept = (path: string, reason: string) => changes.set(path, { path, kind: "unkept", reason });
  // The message each call was made after: a command's changes count from there.
  const callAt = new Map<string, number>();
  let messages = -1;
  stored.forEach((raw, position) => {
    if (raw.type === "message") messages += 1;
    if (skipped.has(position) || entryProblem(raw) !== undefined) return;
    const entry = raw as unknown as SessionEntry;
    if (entry.type === "tool_call") callAt.set(entry.toolCallId, messages);
    if ((entry.type === "command_files" ? (callAt.get(entry.toolCallId) ?? messages) : messages) < from) return;
    if (entry.type === "tool_call") calls.set(entry.toolCallId, entry);
    if (entry.type === "command_files") {
      for (const file of entry.files) change(file.path, file.before === null ? null : { id: file.before }, file.after === null ? null : { id: file.after });
      for (const file of entry.unkept ?? []) unkept(file.path, file.reason);
    }
    if (entry.type !== "tool_result" || entry.status !== "completed") return;
    const call = calls.get(entry.toolCallId);
    if (entry.diff) {
      const { path, oldText, newText } = entry.diff;
      change(path, oldText === null ? null : { text: oldText }, { text: newText });
    } else if (call && FILE_TOOLS.has(call.toolName)) {
      const path = entry.locations?.[0]?.path ?? call.locations[0]?.path;
      if (path !== undefined) unkept(path, "the change was too large to keep its text");
    }
  });
  // A file the agent created and removed again needs nothing.
  return [...changes.values()].filter((c) => !(c.kind === "kept" && c.before === null && c.after === null));
}
