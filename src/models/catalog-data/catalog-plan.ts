/**
 * Which of models.dev's providers the catalogue keeps, under the names
 * acp-edge gives them, and for the OpenAI-compatible services a user names by
 * a key alone (presets) where their endpoint is. models.dev's own `api` field
 * wins where it has one; `baseUrl` covers those it leaves to a vendor package.
 * @module
 */

export interface CatalogPlanEntry {
  /** The acp-edge provider name (a built-in, a preset, or a kind another build adds). */
  name: string;
  /** models.dev provider ids merged into it, first wins on a shared model id. */
  sources: string[];
  /** An OpenAI-compatible service reachable with a key alone: its endpoint when models.dev names none. */
  preset?: { baseUrl?: string };
}

export const CATALOG_PLAN: readonly CatalogPlanEntry[] = [
  { name: "anthropic", sources: ["anthropic"] },
  { name: "openai", sources: ["openai"] },
  { name: "google", sources: ["google"] },
  { name: "vertex", sources: ["google-vertex", "google-vertex-anthropic"] },
  { name: "bedrock", sources: ["amazon-bedrock"] },
  { name: "azure", sources: ["azure"] },
  { name: "openrouter", sources: ["openrouter"], preset: {} },
  { name: "groq", sources: ["groq"], preset: { baseUrl: "https://api.groq.com/openai/v1" } },
  { name: "deepseek", sources: ["deepseek"], preset: {} },
  { name: "mistral", sources: ["mistral"], preset: { baseUrl: "https://api.mistral.ai/v1" } },
  { name: "xai", sources: ["xai"], preset: { baseUrl: "https://api.x.ai/v1" } },
  { name: "together", sources: ["togetherai"], preset: { baseUrl: "https://api.together.xyz/v1" } },
  { name: "fireworks", sources: ["fireworks-ai"], preset: {} },
  { name: "cerebras", sources: ["cerebras"], preset: { baseUrl: "https://api.cerebras.ai/v1" } },
  { name: "ollama-cloud", sources: ["ollama-cloud"], preset: {} },
];
