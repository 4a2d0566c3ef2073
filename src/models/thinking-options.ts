/**
 * Turns a thinking level into what each wire API wants: provider options
 * for the provider packages and an output-token limit that leaves room for the reasoning.
 * @module
 */
import type { ModelInfo, ThinkingLevel, Wire } from "./types.ts";
import { isBedrockClaude } from "./prompt-cache.ts";

/** Per-request settings derived from the thinking level. */
export interface ThinkingSettings {
  /** What to pass as the call's `maxOutputTokens`. */
  maxOutputTokens: number;
  /** Provider packages' `providerOptions`, keyed by provider namespace; absent when nothing is to be sent. */
  providerOptions?: Record<string, Record<string, string | number | boolean | Record<string, unknown>>>;
}

/** Anthropic extended-thinking budgets, in tokens. */
export const ANTHROPIC_BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
};

/** Room for the visible answer on top of the thinking budget. */
const ANSWER_ROOM = 16384;
/** A plain answer rarely needs more; larger limits only make providers reserve more. */
const DEFAULT_OUTPUT_CAP = 32000;
/** Anthropic rejects budgets below this. */
const MIN_ANTHROPIC_BUDGET = 1024;

/** Settings for one request to `info` in `wire` format at `level`. */
export function thinkingSettings(info: ModelInfo, wire: Wire, level: ThinkingLevel): ThinkingSettings {
  const cap = info.maxOutputTokens > 0 ? Math.floor(info.maxOutputTokens) : 4096;
  const plain: ThinkingSettings = { maxOutputTokens: Math.min(cap, DEFAULT_OUTPUT_CAP) };
  if (!info.reasoning || level === "off") return plain;

  switch (wire) {
    case "anthropic": {
      const total = Math.min(cap, ANTHROPIC_BUDGETS[level] + ANSWER_ROOM);
      // The budget must stay below max_tokens; shrink it when the model's limit is small.
      const budget = Math.min(ANTHROPIC_BUDGETS[level], total - MIN_ANTHROPIC_BUDGET);
      if (budget < MIN_ANTHROPIC_BUDGET) return plain;
      // @ai-sdk/anthropic adds the budget to maxOutputTokens to form max_tokens, so pass the remainder.
      return {
        maxOutputTokens: total - budget,
        providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: budget } } },
      };
    }
    case "openai-responses":
      return {
        ...plain,
        providerOptions: {
          openai: { reasoningEffort: level === "xhigh" ? "high" : level, reasoningSummary: "auto" },
        },
      };
    case "chat":
      // Servers behind this API (vLLM, Ollama, llama.cpp, OpenRouter…) commonly accept only low/medium/high.
      return {
        ...plain,
        providerOptions: {
          openaiCompatible: { reasoningEffort: level === "minimal" ? "low" : level === "xhigh" ? "high" : level },
        },
      };
    case "gemini":
      // Gemini counts thinking inside its output limit; the thoughts come back as summaries when asked for.
      return {
        maxOutputTokens: Math.min(cap, ANTHROPIC_BUDGETS[level] + ANSWER_ROOM),
        providerOptions: { google: { thinkingConfig: { thinkingBudget: ANTHROPIC_BUDGETS[level], includeThoughts: true } } },
      };
    case "converse": {
      // Only Claude takes a thinking budget through Converse; other families answer without one.
      if (!isBedrockClaude(info.id)) return plain;
      const budget = ANTHROPIC_BUDGETS[level];
      return { maxOutputTokens: Math.min(cap, budget + ANSWER_ROOM), providerOptions: { bedrock: { reasoningConfig: { type: "enabled", budgetTokens: budget } } } };
    }
  }
}
