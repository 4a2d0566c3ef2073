/**
 * Maps the provider packages' stream parts (LanguageModelV3) to the
 * project's `ModelEvent`s: deltas, thinking with its provider data
 * (signatures, encrypted reasoning), tool calls, and the finish cause and usage.
 * @module
 */
import type { StreamPart, V3FinishReason, V3Usage } from "./ai-sdk-v3.ts";
import type { FinishCause, ModelEvent, ProviderData, Usage } from "./types.ts";

type Metadata = Extract<StreamPart, { type: "text-delta" }>["providerMetadata"];
type ToolCall = Extract<StreamPart, { type: "tool-call" }>;

/** The event for a content part, or undefined for parts that carry nothing the engine needs. */
export function contentEvent(part: StreamPart): ModelEvent | undefined {
  switch (part.type) {
    case "text-delta":
      return part.delta ? { type: "text", block: part.id, text: part.delta } : undefined;
    case "reasoning-delta": {
      const providerData = dataOf(part.providerMetadata);
      // An empty delta can still carry the block's signature (Anthropic `signature_delta`).
      if (!part.delta && !providerData) return undefined;
      return { type: "thinking", block: part.id, text: part.delta, ...(providerData ? { providerData } : {}) };
    }
    case "reasoning-start":
    case "reasoning-end": {
      // Redacted thinking arrives on start, OpenAI's encrypted reasoning on end.
      const providerData = dataOf(part.providerMetadata);
      return providerData ? { type: "thinking", block: part.id, text: "", providerData } : undefined;
    }
    case "tool-call": {
      const providerData = dataOf(part.providerMetadata);
      if (part.providerExecuted) {
        return { type: "server_tool_call", id: part.toolCallId, name: part.toolName, input: toolInput(part), ...(providerData ? { providerData } : {}) };
      }
      return {
        type: "tool_call",
        id: part.toolCallId,
        name: part.toolName,
        input: toolInput(part),
        ...(providerData ? { providerData } : {}),
      };
    }
    case "tool-result": {
      // Only provider-executed tools report results in the stream; the engine runs every other tool itself.
      const providerData = dataOf(part.providerMetadata);
      return {
        type: "server_tool_result",
        id: part.toolCallId,
        name: part.toolName,
        output: part.result,
        isError: part.isError === true,
        ...(providerData ? { providerData } : {}),
      };
    }
    case "source":
      if (part.sourceType !== "url") return undefined;
      return { type: "citation", citation: { url: part.url, ...(part.title ? { title: part.title } : {}) } };
    default:
      return undefined;
  }
}

/**
 * The arguments object of a call. Providers stream them as JSON text; empty
 * text means no arguments. Text that is not JSON stays a string, which the
 * engine's schema check then reports to the model as a malformed call.
 */
function toolInput(part: ToolCall): unknown {
  const text = part.input;
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Our finish cause for the unified reason plus the provider's raw one. */
export function finishCause(reason: V3FinishReason): FinishCause {
  if (reason.raw === "refusal") return "refusal";
  if (reason.raw === "pause_turn") return "pause";
  switch (reason.unified) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "tool-calls":
      return "tool_calls";
    case "content-filter":
      return "refusal";
    default:
      return "other";
  }
}

/**
 * Token counts with cached input split out; unknown counts are 0. `searches`: the provider's own searches
 * counted from the stream, for providers whose usage does not report them (Anthropic's does, and wins).
 */
export function toUsage(usage: V3Usage | undefined, searches = 0): Usage {
  const input = usage?.inputTokens;
  const cacheRead = count(input?.cacheRead);
  const cacheWrite = count(input?.cacheWrite);
  const noCache = input?.noCache !== undefined ? count(input.noCache) : Math.max(0, count(input?.total) - cacheRead - cacheWrite);
  const webSearches = reportedSearches(usage?.raw) ?? searches;
  return { input: noCache, output: count(usage?.outputTokens?.total), cacheRead, cacheWrite, ...(webSearches > 0 ? { webSearches } : {}) };
}

/** Anthropic's `server_tool_use.web_search_requests` in the raw usage, when present. */
function reportedSearches(raw: unknown): number | undefined {
  const requests = (raw as { server_tool_use?: { web_search_requests?: unknown } } | undefined)?.server_tool_use?.web_search_requests;
  return typeof requests === "number" ? count(Math.floor(requests)) : undefined;
}

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function dataOf(metadata: Metadata): ProviderData | undefined {
  if (!metadata) return undefined;
  let data: ProviderData | undefined;
  for (const key in metadata) {
    const value = metadata[key];
    if (!value || Object.keys(value).length === 0) continue;
    data ??= {};
    data[key] = value as ProviderData[string];
  }
  return data;
}
