/**
 * The updates that show a stored conversation to a client again
 * (`session/load`): messages, tool calls with their results, then the plan,
 * title and usage.
 * @module
 */
import { typedParts } from "../../models/typed-parts.ts";
import type { Citation, ModelMessage } from "../../models/types.ts";
import type { sourcesText } from "../../models/citations.ts";
import type { StoredEntry } from "../../store/types.ts";
import type { PlanEntry } from "../../tools/types.ts";
import type { SessionEntry } from "../../sessions/journal/session-entries.ts";
import { intactEntries } from "../../sessions/journal/session-entry-check.ts";
import { rewoundPositions } from "../../sessions/journal/rewound-entries.ts";
import { INTERRUPTED } from "../../sessions/journal/session-restore.ts";
import { bounded, diffContent, partContent, toLocation, toolResultFields, userMessageChunks, withParent } from "./projection.ts";
import type { SessionUpdate } from "../sdk.ts";

/**
 * The updates that show a stored conversation again, in order, ending with the plan, title and usage.
 * `sources` writes an answer's cited sources as they followed it (models/citations.ts, loaded by the caller when
 * a replay needs it); without it, answers are shown without their sources.
 */
export function replayUpdates(stored: readonly StoredEntry[], sources?: typeof sourcesText): SessionUpdate[] {
  // What a rewind took out is not shown again.
  const removed = rewoundPositions(stored);
  const entries = intactEntries(removed.size === 0 ? stored : stored.filter((_, position) => !removed.has(position)));
  const results = new Map<string, Extract<SessionEntry, { type: "tool_result" }>>();
  for (const entry of entries) if (entry.type === "tool_result") results.set(entry.toolCallId, entry);

  const updates: SessionUpdate[] = [];
  let plan: PlanEntry[] | undefined;
  let title: string | undefined;
  let usage: Extract<SessionEntry, { type: "usage" }> | undefined;
  for (const entry of entries) {
    switch (entry.type) {
      case "message":
        updates.push(...messageUpdates(entry.messageId, entry.message, sources));
        break;
      case "tool_call": {
        const result = results.get(entry.toolCallId);
        // What the model was given: the result's output, or the note that the call never finished.
        const output = result ? result.content : [{ type: "text" as const, text: INTERRUPTED }];
        const content = result?.diff ? [diffContent(result.diff)] : (output ?? [{ type: "text" as const, text: INTERRUPTED }]).map(partContent);
        const update: SessionUpdate = {
          sessionUpdate: "tool_call",
          toolCallId: entry.toolCallId,
          title: entry.title,
          kind: entry.kind,
          status: result?.status ?? "failed",
          locations: (result?.locations ?? entry.locations).map(toLocation),
          rawInput: bounded(entry.input),
          content,
          ...toolResultFields(output, result?.details),
        };
        updates.push(entry.parentToolCallId === undefined ? update : withParent(update, entry.parentToolCallId));
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

function messageUpdates(messageId: string, message: ModelMessage, sourcesText?: (citations: Citation[] | undefined) => string): SessionUpdate[] {
  // What hooks added is not replayed as the user's words: they did not type it.
  if (message.role === "user") return userMessageChunks(typedParts(message.content), messageId);
  if (message.role === "assistant") {
    const out: SessionUpdate[] = [];
    for (const part of message.content) {
      if (part.type === "thinking" && part.text) {
        out.push({ sessionUpdate: "agent_thought_chunk", messageId: `${messageId}_thought`, content: { type: "text", text: part.text } });
      } else if (part.type === "text") {
        out.push({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: part.text } });
      }
    }
    // The sources follow the answer as they did when it streamed.
    const sources = sourcesText?.(message.citations);
    if (sources) out.push({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text: sources } });
    return out;
  }
  return [];
}
