/**
 * The wire format a request travels in, which is what caching, thinking and
 * message shaping depend on: Claude speaks Anthropic Messages whether it is
 * reached directly or on Vertex; Gemini speaks the same `generateContent`
 * on the Gemini API and on Vertex; Bedrock's Converse API wraps every model
 * family; Azure serves OpenAI's chat completions.
 * @module
 */
import type { ProviderApi } from "./types.ts";

export type Wire = "anthropic" | "openai-responses" | "chat" | "gemini" | "converse";

/** Vertex serves Anthropic's models under their own ids (`claude-sonnet-4-5@20250929`). */
export function isVertexClaude(modelId: string): boolean {
  return /^claude-/i.test(modelId);
}

/** Bedrock ids name the vendor, optionally after a cross-region prefix: `anthropic.claude-…`, `us.anthropic.claude-…`, or an inference-profile ARN. */
export function isBedrockClaude(modelId: string): boolean {
  return /(^|[.:/])anthropic\.claude-/i.test(modelId);
}

export function wireOf(api: ProviderApi, modelId: string): Wire {
  switch (api) {
    case "anthropic":
      return "anthropic";
    case "openai":
      return "openai-responses";
    case "openai-compatible":
    case "azure":
      return "chat";
    case "google":
      return "gemini";
    case "vertex":
      return isVertexClaude(modelId) ? "anthropic" : "gemini";
    case "bedrock":
      return "converse";
  }
}

/** Whether the model is Anthropic's: caching is then marked by breakpoints, and 1-hour writes cost more. */
export function isClaudeModel(api: ProviderApi, modelId: string): boolean {
  return wireOf(api, modelId) === "anthropic" || (api === "bedrock" && isBedrockClaude(modelId));
}
