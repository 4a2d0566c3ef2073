/**
 * Engine events as ACP `session/update` payloads, for one client during one
 * turn. Command output is never resent whole: clients that render Zed-style
 * terminals (`_meta.terminal_output`) get each new piece; others get a short
 * rolling tail at most a few times a second; everyone gets the final result.
 * `message` events are for the store and produce nothing here, except a
 * message steered into the turn, shown as `user_message_chunk`s.
 * @module
 */
import type { EngineEvent } from "../../engine/events.ts";
import type { ImagePart, TextPart } from "../../models/types.ts";
import type { FileDiff, ToolLocation, ToolOutputPart } from "../../tools/types.ts";
import type { ContentBlock, SessionUpdate, ToolCallContent } from "../sdk.ts";
import { redactValue } from "../../runtime/secrets.ts";

/** rawInput and a result's summary are for display; anything bigger is summarised, never streamed whole. */
const RAW_LIMIT = 8 * 1024;
/** Where a tool call's small structured summary (counts, paths, exit code) travels: `_meta["acp-edge/summary"]`. */
export const SUMMARY_META_KEY = "acp-edge/summary";
/** Where a subagent's tool call names the `task` call that runs it: `_meta["acp-edge/parentToolCallId"]`. */
export const PARENT_META_KEY = "acp-edge/parentToolCallId";
/** The live tail shown to clients without terminal rendering. */
const LIVE_TAIL_BYTES = 4 * 1024;
const LIVE_TAIL_INTERVAL_MS = 250;

export interface ProjectionOptions {
  /** The client renders command output from `_meta.terminal_output` deltas (Zed's convention). */
  terminalOutput: boolean;
  /** The client advertised `session.compaction`: compaction gets its own updates instead of a notice. */
  compaction: boolean;
  cwd: string;
}

interface CommandView {
  /** Shown in an editor terminal (client-run) — its output is the client's business. */
  clientTerminal?: string;
  tail: string;
  lastSent: number;
}

export class TurnProjector {
  readonly #options: ProjectionOptions;
  readonly #commands = new Map<string, CommandView>();

  constructor(options: ProjectionOptions) {
    this.#options = options;
  }

  /** Every update an event shows: a steered message one chunk per part, any other event at most one. */
  updates(event: EngineEvent): SessionUpdate[] {
    if (event.type === "message") return event.steered && event.message.role === "user" ? userMessageChunks(event.message.content, event.messageId) : [];
    const update = this.project(event);
    if (!update) return [];
    const parent = "parentToolCallId" in event ? event.parentToolCallId : undefined;
    return [parent === undefined ? update : withParent(update, parent)];
  }

  project(event: EngineEvent): SessionUpdate | undefined {
    switch (event.type) {
      case "text_delta":
        return { sessionUpdate: "agent_message_chunk", messageId: event.messageId, content: { type: "text", text: event.text } };
      case "thinking_delta":
        return { sessionUpdate: "agent_thought_chunk", messageId: event.messageId, content: { type: "text", text: event.text } };
      case "notice":
        return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } };
      case "plan":
        return { sessionUpdate: "plan", entries: event.entries };
      case "usage":
        return {
          sessionUpdate: "usage_update",
          used: event.used,
          size: event.size,
          ...(event.cost === undefined ? {} : { cost: { amount: Math.round(event.cost * 1e6) / 1e6, currency: "USD" } }),
        };
      case "tool_call":
        return this.#toolCall(event);
      case "tool_call_preview":
        return {
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          ...(event.diff ? { content: [diffContent(event.diff)] } : {}),
          ...(event.locations ? { locations: event.locations.map(toLocation) } : {}),
        };
      case "tool_terminal": {
        const view = this.#commands.get(event.toolCallId);
        if (view) view.clientTerminal = event.terminalId;
        return { sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, content: [{ type: "terminal", terminalId: event.terminalId }] };
      }
      case "tool_output":
        return this.#output(event.toolCallId, event.delta);
      case "tool_call_update":
        return this.#toolCallUpdate(event);
      case "compaction":
        return this.#compaction(event);
      case "compaction_delta":
        return this.#options.compaction
          ? { sessionUpdate: "compaction_summary_chunk", compactionId: event.compactionId, content: { type: "text", text: event.text } }
          : undefined;
      case "message":
      case "retracted":
        return undefined;
    }
  }

  #compaction(event: Extract<EngineEvent, { type: "compaction" }>): SessionUpdate {
    if (this.#options.compaction) {
      const status = event.phase === "started" ? "in_progress" : event.phase;
      return {
        sessionUpdate: "compaction_update",
        compactionId: event.compactionId,
        status,
        ...(event.summary ? { summary: [{ type: "text", text: event.summary }] } : {}),
        ...(event.error ? { error: event.error } : {}),
      };
    }
    const text =
      event.phase === "started"
        ? event.reason === "manual"
          ? "Compacting the conversation…\n"
          : "The conversation is close to the model's context limit; summarising older messages…\n"
        : event.phase === "completed"
          ? `Older messages (about ${event.tokensBefore ?? 0} tokens) were summarised; the full history stays in the session file.\n`
          : `Compaction failed: ${event.error ?? "unknown error"}\n`;
    return { sessionUpdate: "agent_message_chunk", content: { type: "text", text } };
  }

  #toolCall(event: Extract<EngineEvent, { type: "tool_call" }>): SessionUpdate {
    const base = {
      sessionUpdate: "tool_call" as const,
      toolCallId: event.toolCallId,
      title: event.title,
      kind: event.kind,
      status: "pending" as const,
      locations: event.locations.map(toLocation),
      rawInput: bounded(event.input),
    };
    if (event.kind !== "execute") return base;
    this.#commands.set(event.toolCallId, { tail: "", lastSent: 0 });
    if (!this.#options.terminalOutput) return base;
    return {
      ...base,
      content: [{ type: "terminal", terminalId: event.toolCallId }],
      _meta: { terminal_info: { terminal_id: event.toolCallId, cwd: this.#options.cwd } },
    };
  }

  #output(toolCallId: string, delta: string): SessionUpdate | undefined {
    const view = this.#commands.get(toolCallId);
    if (!view || view.clientTerminal) return undefined;
    if (this.#options.terminalOutput) {
      return { sessionUpdate: "tool_call_update", toolCallId, _meta: { terminal_output: { terminal_id: toolCallId, data: delta } } };
    }
    view.tail = lastBytes(view.tail + delta, LIVE_TAIL_BYTES);
    const now = Date.now();
    if (now - view.lastSent < LIVE_TAIL_INTERVAL_MS) return undefined;
    view.lastSent = now;
    return { sessionUpdate: "tool_call_update", toolCallId, content: [textContent(view.tail)] };
  }

  #toolCallUpdate(event: Extract<EngineEvent, { type: "tool_call_update" }>): SessionUpdate {
    const view = this.#commands.get(event.toolCallId);
    const update: SessionUpdate = {
      sessionUpdate: "tool_call_update",
      toolCallId: event.toolCallId,
      status: event.status,
      ...(event.locations ? { locations: event.locations.map(toLocation) } : {}),
      ...toolResultFields(event.content, event.details),
    };
    const terminalId = view?.clientTerminal ?? (this.#options.terminalOutput && view ? event.toolCallId : undefined);
    // An editor terminal stays the content even while its command runs on (a background command).
    if (terminalId && event.status !== "in_progress" && (event.exit || view?.clientTerminal)) {
      // The terminal already shows the output; keep it as the content and say how the command ended.
      update.content = [{ type: "terminal", terminalId }];
      if (!view?.clientTerminal && event.exit) {
        update._meta = { ...update._meta, terminal_exit: { terminal_id: terminalId, exit_code: event.exit.exitCode, signal: event.exit.signal } };
      }
    } else if (event.diff) {
      update.content = [diffContent(event.diff)];
    } else if (event.content) {
      update.content = event.content.map(partContent);
    }
    if (event.status === "completed" || event.status === "failed") this.#commands.delete(event.toolCallId);
    return update;
  }
}

/** A subagent's tool call update, naming the `task` call it belongs to (as claude-agent-acp names its parent tool use). */
export function withParent(update: SessionUpdate, parentToolCallId: string): SessionUpdate {
  if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") return update;
  return { ...update, _meta: { ...update._meta, [PARENT_META_KEY]: parentToolCallId } };
}

/**
 * A user message as it is shown: one `user_message_chunk` per part. A file
 * embedded from a link is shown as the link, not its text: what the user
 * sent, on every transport and in a replay, never a copy of the file.
 */
export function userMessageChunks(content: readonly (TextPart | ImagePart)[], messageId?: string): SessionUpdate[] {
  return content.map((part) => ({
    sessionUpdate: "user_message_chunk" as const,
    ...(messageId === undefined ? {} : { messageId }),
    content: part.type === "text" ? textOrLink(part.text) : { type: "image" as const, data: part.data, mimeType: part.mimeType },
  }));
}

/** `<resource uri="…">…</resource>` as `resourceText` writes it. */
const EMBEDDED = /^<resource uri="([^"]*)"(?: mimeType="([^"]*)")?>\n/;

function textOrLink(text: string): ContentBlock {
  const embedded = text.endsWith("\n</resource>") ? EMBEDDED.exec(text) : null;
  if (!embedded) return { type: "text", text };
  const uri = embedded[1]!;
  const last = uri.split("/").filter(Boolean).pop() ?? uri;
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch {
    // A malformed escape: the name is shown as it was written.
  }
  return { type: "resource_link", uri, name: name || uri, ...(embedded[2] ? { mimeType: embedded[2] } : {}), size: text.length - embedded[0].length - 12 };
}

/**
 * What a finished call shows besides its content: `rawOutput`, the output the
 * model was given (text and images as content blocks, bounded and redacted
 * like the content), and the tool's summary under `_meta["acp-edge/summary"]`.
 */
export function toolResultFields(content: readonly ToolOutputPart[] | undefined, details: Record<string, unknown> | undefined) {
  return {
    ...(content ? { rawOutput: content.map(outputBlock) } : {}),
    ...(details ? { _meta: { [SUMMARY_META_KEY]: bounded(details) } } : {}),
  };
}

function outputBlock(part: ToolOutputPart) {
  return part.type === "text" ? { type: "text", text: part.text } : { type: "image", data: part.data, mimeType: part.mimeType };
}

export function toLocation(location: ToolLocation) {
  return location.line === undefined ? { path: location.path } : { path: location.path, line: location.line };
}

export function diffContent(diff: FileDiff): ToolCallContent {
  return { type: "diff", path: diff.path, oldText: diff.oldText, newText: diff.newText };
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

export function partContent(part: ToolOutputPart): ToolCallContent {
  return part.type === "text" ? textContent(part.text) : { type: "content", content: { type: "image", data: part.data, mimeType: part.mimeType } };
}

/** The end of `text`, at most `limit` UTF-16 units, starting at a line boundary when one is near. */
function lastBytes(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(text.length - limit);
  const newline = cut.indexOf("\n");
  return newline >= 0 && newline < 200 ? cut.slice(newline + 1) : cut;
}

export function bounded(value: unknown): unknown {
  let text: string | undefined;
  try {
    // Redacted before the cut: a cut through a key would leave a piece that redaction no longer recognises.
    value = redactValue(value);
    text = JSON.stringify(value);
  } catch {
    return { note: "not serialisable" };
  }
  if (text === undefined || text.length <= RAW_LIMIT) return value;
  return { truncated: true, preview: `${text.slice(0, RAW_LIMIT)}…`, bytes: text.length };
}
