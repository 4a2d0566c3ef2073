/**
 * Bringing a stored session back: the model's history (after the latest
 * compaction), its settings, grants and title — and, for `session/load`,
 * the updates that show the whole conversation to the editor again.
 * @module
 */
import type { ApprovalMode } from "../config/settings-schema.ts";
import { summaryMessage } from "../engine/compaction.ts";
import type { ModelMessage, ThinkingLevel, ToolResultMessage } from "../models/types.ts";
import type { PlanEntry } from "../tools/types.ts";
import type { StoredEntry } from "../store/types.ts";
import type { Grant } from "./permissions/grants.ts";
import { bounded, diffContent, partContent, toLocation } from "./projection.ts";
import type { SessionUpdate } from "./sdk.ts";
import type { SessionEntry } from "./session-entries.ts";
import { checkEntry, intactEntries } from "./session-entry-check.ts";

const INTERRUPTED = "Not finished: the agent stopped before this tool call completed.";

export interface RestoredState {
  /** What the model sees: the summary of compacted history, then the messages after it. */
  history: ModelMessage[];
  /** Every `message` entry in the journal. */
  messageCount: number;
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

/**
 * The state a journal's entries add up to. Entries are checked against the
 * schemas they were written with; damaged ones are skipped with a notice.
 */
export function restoreState(stored: readonly StoredEntry[]): RestoredState {
  // A damaged message keeps its place (undefined) so compaction's message index still lines up.
  const all: Array<ModelMessage | undefined> = [];
  const state: RestoredState = { history: [], messageCount: 0, grants: [], notices: [] };
  let compaction: { summary: string; keptFrom: number } | undefined;
  for (const [index, raw] of stored.entries()) {
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
      case "compaction":
        compaction = { summary: entry.summary, keptFrom: entry.keptFrom };
        break;
    }
  }
  state.messageCount = all.length;
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

/** The updates that show a stored conversation again, in order, ending with the plan, title and usage. */
export function replayUpdates(stored: readonly StoredEntry[]): SessionUpdate[] {
  const entries = intactEntries(stored);
  const results = new Map<string, Extract<SessionEntry, { type: "tool_result" }>>();
  for (const entry of entries) if (entry.type === "tool_result") results.set(entry.toolCallId, entry);

  const updates: SessionUpdate[] = [];
  let plan: PlanEntry[] | undefined;
  let title: string | undefined;
  let usage: Extract<SessionEntry, { type: "usage" }> | undefined;
  for (const entry of entries) {
    switch (entry.type) {
      case "message":
        updates.push(...messageUpdates(entry.messageId, entry.message));
        break;
      case "tool_call": {
        const result = results.get(entry.toolCallId);
        const content = result?.diff ? [diffContent(result.diff)] : (result?.content ?? [{ type: "text", text: INTERRUPTED }]).map(partContent);
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: entry.toolCallId,
          title: entry.title,
          kind: entry.kind,
          status: result?.status ?? "failed",
          locations: (result?.locations ?? entry.locations).map(toLocation),
          rawInput: bounded(entry.input),
          content,
          ...(result?.details ? { rawOutput: bounded(result.details) } : {}),
        });
        break;
      }
      case "plan":
        plan = entry.entries;
        break;
      case "title":
        title = entry.title ?? undefined;
        break;
      case "usage":
        usage = entry;
        break;
    }
  }
  if (plan) updates.push({ sessionUpdate: "plan", entries: plan });
  if (title) updates.push({ sessionUpdate: "session_info_update", title });
  if (usage) {
    updates.push({
      sessionUpdate: "usage_update",
      used: usage.used,
      size: usage.size,
      ...(usage.cost === undefined ? {} : { cost: { amount: Math.round(usage.cost * 1e6) / 1e6, currency: "USD" } }),
    });
  }
  return updates;
}

function messageUpdates(messageId: string, message: ModelMessage): SessionUpdate[] {
  if (message.role === "user") {
    return message.content.map((part) => ({
      sessionUpdate: "user_message_chunk" as const,
      messageId,
      content: part.type === "text" ? { type: "text" as const, text: part.text } : { type: "image" as const, data: part.data, mimeType: part.mimeType },
    }));
  }
  if (message.role === "assistant") {
    const out: SessionUpdate[] = [];
    for (const part of message.content) {
      if (part.type === "thinking" && part.text) {
        out.push({ sessionUpdate: "agent_thought_chunk", messageId: `${messageId}_thought`, content: { type: "text", text: part.text } });
      } else if (part.type === "text") {
        out.push({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: part.text } });
      }
    }
    return out;
  }
  return [];
}
