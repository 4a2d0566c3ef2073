/**
 * Engine events as ACP `session/update` payloads. `message` events are for
 * the store and produce nothing here.
 * @module
 */
import type { EngineEvent } from "../engine/events.ts";
import type { ToolOutputPart } from "../tools/types.ts";
import type { SessionUpdate, ToolCallContent } from "./sdk.ts";

/** rawInput/rawOutput are for display; anything bigger is summarised, never streamed whole. */
const RAW_LIMIT = 8 * 1024;

export function projectEvent(event: EngineEvent): SessionUpdate | undefined {
  switch (event.type) {
    case "text_delta":
      return { sessionUpdate: "agent_message_chunk", messageId: event.messageId, content: { type: "text", text: event.text } };
    case "thinking_delta":
      return { sessionUpdate: "agent_thought_chunk", messageId: event.messageId, content: { type: "text", text: event.text } };
    case "notice":
      return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } };
    case "tool_call":
      return {
        sessionUpdate: "tool_call",
        toolCallId: event.toolCallId,
        title: event.title,
        kind: event.kind,
        status: "pending",
        locations: event.locations.map(toLocation),
        rawInput: bounded(event.input),
      };
    case "tool_call_update":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: event.toolCallId,
        status: event.status,
        ...(event.content ? { content: event.content.map(toToolContent) } : {}),
        ...(event.locations ? { locations: event.locations.map(toLocation) } : {}),
        ...(event.details ? { rawOutput: bounded(event.details) } : {}),
      };
    case "usage":
      return {
        sessionUpdate: "usage_update",
        used: event.used,
        size: event.size,
        ...(event.cost === undefined ? {} : { cost: { amount: round(event.cost), currency: "USD" } }),
      };
    case "message":
      return undefined;
  }
}

function toLocation(location: { path: string; line?: number }) {
  return location.line === undefined ? { path: location.path } : { path: location.path, line: location.line };
}

function toToolContent(part: ToolOutputPart): ToolCallContent {
  return part.type === "text"
    ? { type: "content", content: { type: "text", text: part.text } }
    : { type: "content", content: { type: "image", data: part.data, mimeType: part.mimeType } };
}

function bounded(value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return { note: "not serialisable" };
  }
  if (text === undefined || text.length <= RAW_LIMIT) return value;
  return { truncated: true, preview: `${text.slice(0, RAW_LIMIT)}…`, bytes: text.length };
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
