/**
 * What acp-edge writes into a session's journal: the payloads of the store's
 * generic entries (see docs/storage.md). Each entry records a step as it
 * completes; together they rebuild the conversation, its settings and what
 * the editor was shown.
 * @module
 */
import type { ApprovalMode } from "../../config/settings-schema.ts";
import type { ModelMessage, ThinkingLevel } from "../../models/types.ts";
import type { FileVersionChange } from "../../engine/events.ts";
import type { FileDiff, PlanEntry, ToolKind, ToolLocation, ToolOutputPart } from "../../tools/types.ts";
import type { Grant } from "../../permissions/grants.ts";

export type SessionEntry =
  /** A message of the conversation (user prompt, assistant reply, tool result). */
  | { type: "message"; messageId: string; message: ModelMessage }
  /** A tool call as the editor was shown it. */
  | {
      type: "tool_call";
      toolCallId: string;
      toolName: string;
      title: string;
      kind: ToolKind;
      locations: ToolLocation[];
      input: unknown;
      /** A subagent's call: the `task` call that ran it. */
      parentToolCallId?: string;
    }
  /** How a tool call ended. */
  | {
      type: "tool_result";
      toolCallId: string;
      status: "completed" | "failed";
      content?: ToolOutputPart[];
      locations?: ToolLocation[];
      diff?: FileDiff;
      details?: Record<string, unknown>;
      exit?: { exitCode: number | null; signal: string | null };
    }
  /** Files a command changed (snapshots around it): ids of kept copies in the session's checkpoint store, null when absent. */
  | { type: "command_files"; toolCallId: string; files: FileVersionChange[]; unkept?: Array<{ path: string; reason: string }> }
  /** Session settings; only the fields that changed. */
  | { type: "config"; mode?: ApprovalMode; model?: string; thinking?: ThinkingLevel }
  /** The session's title; null clears it. */
  | { type: "title"; title: string | null }
  /** An "always" answer of the user. */
  | { type: "grant"; grant: Grant }
  | { type: "plan"; entries: PlanEntry[] }
  /** The last `messages` `message` entries left the conversation: their turn failed before the model accepted them. */
  | { type: "retracted"; messages: number }
  /**
   * The conversation was rewound to before the user message `messageId`, the `from`-th `message` entry (0-based):
   * it and every entry after it up to this one left the conversation (see rewound-entries.ts).
   */
  | { type: "rewound"; messageId: string; from: number }
  /**
   * The files the agent changed from the user message `messageId` (the `from`-th `message` entry) on were put back
   * as they were before it; the changes recorded since that message are undone and a later file rewind skips them.
   */
  | { type: "files_rewound"; messageId: string; from: number }
  /** Messages before `keptFrom` (an index into all `message` entries) were replaced by `summary`. */
  | { type: "compaction"; summary: string; keptFrom: number; tokensBefore: number }
  /** After each model call: context size and the session's totals. */
  | { type: "usage"; used: number; size: number; cost?: number; input: number; output: number; cacheRead: number; cacheWrite: number };
