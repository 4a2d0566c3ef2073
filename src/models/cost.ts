/**
 * What a model call cost, from its usage and the model's list price.
 * @module
 */
import type { ModelInfo, Usage } from "./types.ts";

/** USD for one call, or undefined when the price is unknown. */
export function callCost(info: ModelInfo, usage: Usage): number | undefined {
  const price = info.price;
  if (!price) return undefined;
  const perToken = 1 / 1_000_000;
  return (
    usage.input * price.input * perToken +
    usage.output * price.output * perToken +
    usage.cacheRead * (price.cacheRead ?? price.input) * perToken +
    usage.cacheWrite * (price.cacheWrite ?? price.input) * perToken +
    // The provider's own searches are billed per search, on top of the tokens their results add.
    (usage.webSearches ?? 0) * (price.webSearch ?? 0)
  );
}

/** Tokens the conversation occupies after a call: everything sent plus what came back. */
export function contextTokens(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
}

/** The share (0 to 1) of input tokens served from the provider's cache, or undefined before any input. */
export function cachedInputShare(usage: Usage): number | undefined {
  const input = usage.input + usage.cacheRead + usage.cacheWrite;
  return input > 0 ? usage.cacheRead / input : undefined;
}
