/**
 * Maps AI SDK `fullStream` parts to the project's `ModelEvent`s: deltas,
 * thinking with its provider data (signatures, encrypted reasoning), tool
 * calls, and the finish cause and usage.
 * @module
 */
import type { FinishReason, LanguageModelUsage, ProviderMetadata, TextStreamPart, ToolSet } from "ai";
import type { FinishCause, ModelEvent, ProviderData, Usage } from "./types.ts";

type Part = TextStreamPart<ToolSet>;

/** The event for a content part, or undefined for parts that carry nothing the engine needs. */
export function contentEvent(part: Part): ModelEvent | undefined {
  switch (part.type) {
    case "text-delta":
      return part.text ? { type: "text", block: part.id, text: part.text } : undefined;
    case "reasoning-delta": {
      const providerData = dataOf(part.providerMetadata);
      // An empty delta can still carry the block's signature (Anthropic `signature_delta`).
      if (!part.text && !providerData) return undefined;
      return { type: "thinking", block: part.id, text: part.text, ...(providerData ? { providerData } : {}) };
    }
    case "reasoning-start":
    case "reasoning-end": {
      // Redacted thinking arrives on start, OpenAI's encrypted reasoning on end.
      const providerData = dataOf(part.providerMetadata);
      return providerData ? { type: "thinking", block: part.id, text: "", providerData } : undefined;
    }
    case "tool-call": {
      if (part.providerExecuted) return undefined;
      const providerData = dataOf(part.providerMetadata);
      return {
        type: "tool_call",
        id: part.toolCallId,
        name: part.toolName,
        input: part.input,
        ...(providerData ? { providerData } : {}),
      };
    }
    default:
      return undefined;
  }
}

/** Our finish cause for the SDK's unified reason plus the provider's raw one. */
export function finishCause(reason: FinishReason, raw: string | undefined): FinishCause {
  if (raw === "refusal") return "refusal";
  switch (reason) {
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

/** Token counts with cached input split out; unknown counts are 0. */
export function toUsage(usage: LanguageModelUsage | undefined): Usage {
  const cacheRead = count(usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens);
  const cacheWrite = count(usage?.inputTokenDetails?.cacheWriteTokens);
  const noCache = usage?.inputTokenDetails?.noCacheTokens;
  const input = noCache !== undefined ? count(noCache) : Math.max(0, count(usage?.inputTokens) - cacheRead - cacheWrite);
  return { input, output: count(usage?.outputTokens), cacheRead, cacheWrite };
}

function count(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function dataOf(metadata: ProviderMetadata | undefined): ProviderData | undefined {
  if (!metadata) return undefined;
  const entries = Object.entries(metadata).filter(([, value]) => value && Object.keys(value).length > 0);
  return entries.length > 0 ? (Object.fromEntries(entries) as ProviderData) : undefined;
}
