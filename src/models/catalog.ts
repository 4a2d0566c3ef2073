/**
 * Facts about well-known models: context window, output limit, reasoning
 * support and list price (USD per million tokens). Settings may add models
 * or override any field.
 * @module
 */
import type { ModelInfo } from "./types.ts";

type Entry = Omit<ModelInfo, "provider" | "id" | "name"> & { name?: string };

const claude = (contextWindow: number, maxOutputTokens: number, input: number, output: number, reasoning = true): Entry => ({
  contextWindow,
  maxOutputTokens,
  reasoning,
  input: ["text", "image"],
  price: { input, output, cacheRead: input / 10, cacheWrite: input * 1.25 },
});

const gpt = (contextWindow: number, maxOutputTokens: number, input: number, output: number, cacheRead: number, reasoning: boolean): Entry => ({
  contextWindow,
  maxOutputTokens,
  reasoning,
  input: ["text", "image"],
  price: { input, output, cacheRead },
});

const gemini = (input: number, output: number, cacheRead: number, maxOutputTokens = 65_536): Entry => ({
  contextWindow: 1_048_576,
  maxOutputTokens,
  reasoning: true,
  input: ["text", "image"],
  price: { input, output, cacheRead },
});

const CATALOG: Record<string, Record<string, Entry>> = {
  anthropic: {
    "claude-opus-4-5": claude(200_000, 64_000, 5, 25),
    "claude-sonnet-4-5": claude(200_000, 64_000, 3, 15),
    "claude-haiku-4-5": claude(200_000, 64_000, 1, 5),
    "claude-opus-4-1": claude(200_000, 32_000, 15, 75),
    "claude-opus-4-0": claude(200_000, 32_000, 15, 75),
    "claude-sonnet-4-0": claude(200_000, 64_000, 3, 15),
    "claude-3-7-sonnet-latest": claude(200_000, 64_000, 3, 15),
    "claude-3-5-haiku-latest": claude(200_000, 8_192, 0.8, 4, false),
  },
  openai: {
    "gpt-5.1": gpt(400_000, 128_000, 1.25, 10, 0.125, true),
    "gpt-5": gpt(400_000, 128_000, 1.25, 10, 0.125, true),
    "gpt-5-mini": gpt(400_000, 128_000, 0.25, 2, 0.025, true),
    "gpt-5-nano": gpt(400_000, 128_000, 0.05, 0.4, 0.005, true),
    "gpt-4.1": gpt(1_047_576, 32_768, 2, 8, 0.5, false),
    "gpt-4.1-mini": gpt(1_047_576, 32_768, 0.4, 1.6, 0.1, false),
    "gpt-4o": gpt(128_000, 16_384, 2.5, 10, 1.25, false),
    "gpt-4o-mini": gpt(128_000, 16_384, 0.15, 0.6, 0.075, false),
    o3: gpt(200_000, 100_000, 2, 8, 0.5, true),
    "o4-mini": gpt(200_000, 100_000, 1.1, 4.4, 0.275, true),
  },
  // The clouds: a few current models each (the catalogue of every provider comes from models.dev).
  google: {
    "gemini-2.5-pro": gemini(1.25, 10, 0.125),
    "gemini-2.5-flash": gemini(0.3, 2.5, 0.03),
  },
  vertex: {
    "gemini-2.5-pro": gemini(1.25, 10, 0.125),
    "gemini-2.5-flash": gemini(0.3, 2.5, 0.03),
    "claude-sonnet-4-5@20250929": claude(200_000, 64_000, 3, 15),
    "claude-haiku-4-5@20251001": claude(200_000, 64_000, 1, 5),
  },
  bedrock: {
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0": claude(200_000, 64_000, 3, 15),
    "anthropic.claude-sonnet-4-5-20250929-v1:0": claude(200_000, 64_000, 3, 15),
    "us.anthropic.claude-haiku-4-5-20251001-v1:0": claude(200_000, 64_000, 1, 5),
  },
  faux: {
    echo: { name: "Faux echo (offline)", contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: false, input: ["text", "image"], price: { input: 0, output: 0 } },
    script: { name: "Faux script (offline)", contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: true, input: ["text", "image"], price: { input: 0, output: 0 } },
  },
};

/** Used first when no model is configured, in this order. */
export const PREFERRED_DEFAULTS: Record<string, string> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5",
  google: "gemini-2.5-pro",
  vertex: "claude-sonnet-4-5@20250929",
  bedrock: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
};

/** Catalog ids of a provider, in catalog order. */
export function catalogModelIds(provider: string): string[] {
  return Object.keys(CATALOG[provider] ?? {});
}

/** A model's facts: catalog entry, else defaults suited to its provider. */
export function catalogInfo(provider: string, id: string): ModelInfo {
  const entry = CATALOG[provider]?.[id];
  if (entry) return { provider, id, ...entry, name: entry.name ?? id };
  return {
    provider,
    id,
    name: id,
    contextWindow: provider === "anthropic" ? 200_000 : 128_000,
    maxOutputTokens: provider === "anthropic" ? 32_000 : 16_384,
    reasoning: false,
    input: ["text", "image"],
  };
}

export function isKnownModel(provider: string, id: string): boolean {
  return CATALOG[provider]?.[id] !== undefined;
}
