/**
 * Bringing a stored session back: the model's history (after the latest
 * compaction), its settings, grants and title.
 * @module
 */
import type { ApprovalMode } from "../../config/settings-schema.ts";
import { summaryMessage } from "../../engine/compaction.ts";
import type { ModelMessage, ThinkingLevel, ToolResultMessage } from "../../models/types.ts";
import type { PlanEntry } from "../../tools/types.ts";
import type { StoredEntry } from "../../store/types.ts";
import type { Grant } from "../../permissions/grants.ts";
import type { SessionEntry } from "./session-entries.ts";
import { checkEntry } from "./session-entry-check.ts";
import { rewoundPositions } from "./rewound-entries.ts";

/** The result a tool call gets when the agent stopped before it completed. */
export const INTERRUPTED = "Not finished: the agent stopped before this tool call completed.";

/** What a session's journal says about it, ready for a live session. */
export interface RestoredState {
  /** What the model sees: the summary of compacted history, then the messages after it. */
  history: ModelMessage[];
  /** Every `message` entry in the journal. */
  messageCount: number;
  /** Places (among the `message` entries) of messages a `retracted` or `rewound` entry took back. */
  retracted: number[];
  /** The ids of every `message` entry in the journal (a client's id for a new message must be none of them). */
  messageIds: string[];
  mode?: ApprovalMode;
  model?: string;
  thinking?: ThinkingLevel;
  title?: string;
  grants: Grant[];
  plan?: PlanEntry[];
  usage?: Extract<SessionEntry, { type: "usage" }>;
  /** What was skipped or ignored while reading, for the user. */
  notices: string[];
}

/** The store's generic entries read as the entries this layer writes. */
export function asEntries(entries: readonly StoredEntry[]): SessionEntry[] {
  return entries as unknown as SessionEntry[];
}

/**
 * Reads a session's state back from its journal entries. Entries are checked
 * against the schemas they were written with; damaged ones are skipped with a notice.
 */
export function restoreState(stored: readonly StoredEntry[]): RestoredState {
  // A damaged message keeps its place (undefined) so compaction's message index still lines up.
  const all: Array<ModelMessage | undefined> = [];
  const state: RestoredState = { history: [], messageCount: 0, retracted: [], messageIds: [], grants: [], notices: [] };
  // Every compaction still in force, newest last: a rewind to before what one summarised falls back to the one before.
  const compactions: Array<{ summary: string; keptFrom: number }> = [];
  const removed = rewoundPositions(stored);
  for (const [index, raw] of stored.entries()) {
    if (raw.type === "message" && typeof raw.messageId === "string") state.messageIds.push(raw.messageId);
    if (removed.has(index)) {
      // Rewound: as if never written, but a message keeps its place so compaction indexes still line up.
      if (raw.type === "message") {
        state.retracted.push(all.length);
        all.push(undefined);
      }
      continue;
    }
    const checked = checkEntry(raw, index + 1);
    state.notices.push(...checked.notices);
    if (checked.damagedMessage) all.push(undefined);
    const entry = checked.entry;
    if (!entry) continue;
    switch (entry.type) {
      case "message":
        all.push(entry.message);
        break;
      case "config":
        if (entry.mode) state.mode = entry.mode;
        if (entry.model) state.model = entry.model;
        if (entry.thinking) state.thinking = entry.thinking;
        break;
      case "title":
        // null (or an empty title) clears it.
        if (entry.title) state.title = entry.title;
        else delete state.title;
        break;
      case "grant":
        state.grants.push(entry.grant);
        break;
      case "plan":
        state.plan = entry.entries;
        break;
      case "usage":
        state.usage = entry;
        break;
      case "retracted":
        // The last messages written leave the conversation; their places stay so compaction indexes still line up.
        for (let at = Math.max(0, all.length - entry.messages); at < all.length; at++) {
          all[at] = undefined;
          state.retracted.push(at);
        }
        break;
      case "compaction":
        compactions.push({ summary: entry.summary, keptFrom: entry.keptFrom });
        break;
      case "rewound":
        // A summary of messages the rewind took out would bring them back: drop it.
        while ((compactions.at(-1)?.keptFrom ?? 0) > entry.from) compactions.pop();
        break;
    }
  }
  state.messageCount = all.length;
  const compaction = compactions.at(-1);
  const intact = (messages: Array<ModelMessage | undefined>) => messages.filter((m): m is ModelMessage => m !== undefined);
  const kept = compaction ? [summaryMessage(compaction.summary), ...intact(all.slice(compaction.keptFrom))] : intact(all);
  state.history = closeDanglingToolCalls(kept);
  return state;
}

/** A crash between a tool call and its result leaves the call open; give it a result so requests stay valid. */
function closeDanglingToolCalls(history: ModelMessage[]): ModelMessage[] {
  const answered = new Set(history.filter((m): m is ToolResultMessage => m.role === "tool").map((m) => m.toolCallId));
  const out: ModelMessage[] = [];
  for (const message of history) {
    out.push(message);
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type === "tool_call" && !answered.has(part.id)) {
        out.push({ role: "tool", toolCallId: part.id, toolName: part.name, content: [{ type: "text", text: INTERRUPTED }], isError: true });
        answered.add(part.id);
      }
    }
  }
  return out;
}
