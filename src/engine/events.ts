/**
 * What the engine reports while a turn runs. These are the engine's own
 * words; `src/sessions/` records them in the journal and hands them to each
 * attached client, which `src/acp/` shows as `session/update` notifications.
 * @module
 */
import type { ModelMessage } from "../models/types.ts";
import type { FileDiff, PlanEntry, ToolKind, ToolLocation, ToolOutputPart } from "../tools/types.ts";

export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

export type ToolCallStatus = "pending" | "in_progress" | "completed" | "failed";

/** One file a command changed: its kept content before and after (null: the file was absent). */
export interface FileVersionChange {
  path: string;
  before: string | null;
  after: string | null;
}

export type EngineEvent =
  /**
   * A message joined the conversation (user prompt, assistant reply, tool
   * result). `steered`: a user message sent while the turn ran, landed at a
   * boundary between model calls (see steering-inbox.ts); clients are shown it.
   */
  | { type: "message"; message: ModelMessage; messageId: string; steered?: true }
  | { type: "text_delta"; messageId: string; text: string }
  | { type: "thinking_delta"; messageId: string; text: string }
  /** The model asked for a tool; it has not run yet. */
  | {
      type: "tool_call";
      toolCallId: string;
      toolName: string;
      kind: ToolKind;
      title: string;
      locations: ToolLocation[];
      input: unknown;
      /** Set on a subagent's calls: the `task` call that runs it. */
      parentToolCallId?: string;
    }
  /** What a pending call will change, worked out before approval. */
  | { type: "tool_call_preview"; toolCallId: string; diff?: FileDiff; locations?: ToolLocation[]; parentToolCallId?: string }
  | {
      type: "tool_call_update";
      toolCallId: string;
      status: Exclude<ToolCallStatus, "pending">;
      content?: ToolOutputPart[];
      locations?: ToolLocation[];
      details?: Record<string, unknown>;
      diff?: FileDiff;
      /** For commands: how they ended. */
      exit?: { exitCode: number | null; signal: string | null };
      parentToolCallId?: string;
    }
  /** New output of a running command since the last one (bounded). */
  | { type: "tool_output"; toolCallId: string; delta: string; parentToolCallId?: string }
  /** The command runs in the editor's terminal. */
  | { type: "tool_terminal"; toolCallId: string; terminalId: string; parentToolCallId?: string }
  /**
   * The last `messages` messages of the conversation were taken back: the
   * turn that added them (its prompt, and messages steered in before its
   * first call) failed before the model accepted any of them.
   */
  | { type: "retracted"; messages: number }
  /** The model's todo list, whole. */
  | { type: "plan"; entries: PlanEntry[] }
  /** After every model call: tokens now in context, the window, and the session's cost so far (USD). */
  | { type: "usage"; used: number; size: number; cost?: number }
  /** Text from the agent itself rather than the model (notices, command output). */
  | { type: "notice"; text: string }
  /**
   * Files a command changed in the session's folders, found by snapshots taken around it: each file's content
   * before and after as the id of a kept copy (null: absent); `unkept`: changed files no copy could be kept of.
   */
  | { type: "files_changed"; toolCallId: string; files: FileVersionChange[]; unkept?: Array<{ path: string; reason: string }> }
  /** Older history is being (or was) replaced by a summary. */
  | {
      type: "compaction";
      phase: "started" | "completed" | "failed";
      compactionId: string;
      reason: "threshold" | "manual";
      summary?: string;
      /** Messages kept verbatim at the end of the history. */
      keptMessages?: number;
      tokensBefore?: number;
      error?: string;
    }
  | { type: "compaction_delta"; compactionId: string; text: string }

/**
 * Receives engine events in order. A returned promise is awaited before the
 * turn goes on, which is how the store makes a step durable before the next.
 */
export type EventSink = (event: EngineEvent) => void | Promise<void>;
