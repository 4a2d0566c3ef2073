/**
 * The wire format a request travels in, which is what caching, thinking and
 * message shaping depend on: Claude speaks Anthropic Messages whether it is
 * reached directly or on Vertex; Gemini speaks the same `generateContent`
 * on the Gemini API and on Vertex; Bedrock's Converse API wraps every model
 * family; Azure serves OpenAI's chat completions.
 * @module
 */
import { isVertexClaude } from "./prompt-cache.ts";
import type { ProviderApi, Wire } from "./types.ts";

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
