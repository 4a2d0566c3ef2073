/**
 * Prompt caching through the provider packages' own options. Anthropic caches
 * only up to the breakpoints a request marks (at most 4): here the tool
 * definitions, the system prompt, the newest message (written for the next
 * step to read) and the newest message of the request before (read from the
 * step before, however many blocks the step added). Claude on Vertex takes
 * the same marks; Claude on Bedrock takes Converse cache points at the same
 * places (Converse has no cache point for tools through the SDK, so the
 * system prompt's covers them: tools come first in the cached prefix).
 * OpenAI's Responses API and Gemini cache prefixes by themselves (Gemini
 * reports the cached tokens in its usage); a key per conversation keeps
 * OpenAI's requests on one cache.
 * @module
 */
import type { FunctionTool, Prompt } from "./ai-sdk-v3.ts";
import type { ModelInfo, ProviderApi, ProviderEndpoint, Wire } from "./types.ts";

/** Vertex serves Anthropic's models under their own ids (`claude-sonnet-4-5@20250929`). */
export function isVertexClaude(modelId: string): boolean {
  return /^claude-/i.test(modelId);
}

/** Bedrock ids name the vendor, optionally after a cross-region prefix: `anthropic.claude-…`, `us.anthropic.claude-…`, or an inference-profile ARN. */
export function isBedrockClaude(modelId: string): boolean {
  return /(^|[.:/])anthropic\.claude-/i.test(modelId);
}

/** Whether the model is Anthropic's, wherever it is served: caching is then marked by breakpoints, and 1-hour writes cost more. */
export function isClaudeModel(api: ProviderApi, modelId: string): boolean {
  return api === "anthropic" || (api === "vertex" && isVertexClaude(modelId)) || (api === "bedrock" && isBedrockClaude(modelId));
}

/** Anthropic refuses a request with more breakpoints than this. */
export const MAX_BREAKPOINTS = 4;

/** OpenAI's limit on `prompt_cache_key`. */
const MAX_CACHE_KEY_CHARS = 64;

type Mode = NonNullable<ProviderEndpoint["promptCache"]>;
type CacheControl = { type: "ephemeral"; ttl?: "1h" };
type Message = Prompt[number];
/** How one message is marked: the provider package's option namespace and its value. */
type Mark = { namespace: "anthropic"; value: { cacheControl: CacheControl } } | { namespace: "bedrock"; value: { cachePoint: { type: "default"; ttl?: "1h" } } };

/** The mark for this model, or undefined where the provider caches by itself (or caching is off). */
function markFor(wire: Wire, modelId: string, mode: Mode): Mark | undefined {
  if (mode === "off") return undefined;
  const long = mode === "long";
  if (wire === "anthropic") return { namespace: "anthropic", value: { cacheControl: long ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" } } };
  if (wire === "converse" && isBedrockClaude(modelId)) return { namespace: "bedrock", value: { cachePoint: long ? { type: "default", ttl: "1h" } : { type: "default" } } };
  return undefined;
}

/** The request's prompt and tools with Claude's breakpoints marked; unchanged when caching is off or the model caches by itself. */
export function withCacheBreakpoints(
  prompt: Prompt,
  tools: FunctionTool[] | undefined,
  endpoint: ProviderEndpoint,
  once = false,
  wire: Wire = "anthropic",
  modelId = "",
): { prompt: Prompt; tools: FunctionTool[] | undefined } {
  const control = markFor(wire, modelId, endpoint.promptCache ?? "short");
  if (!control) return { prompt, tools };
  const marked = new Set<number>();
  const system = prompt.findIndex((m) => m.role === "system");
  if (system >= 0) marked.add(system);
  const newest = once ? -1 : lastIndex(prompt, prompt.length - 1, (m) => m.role !== "system" && m.role !== "assistant");
  if (newest >= 0) marked.add(newest);
  // The newest message before the last reply is where the previous request of this turn (or the previous turn) wrote.
  const reply = newest < 0 ? -1 : lastIndex(prompt, newest - 1, (m) => m.role === "assistant");
  const previous = lastIndex(prompt, reply - 1, (m) => m.role !== "system" && m.role !== "assistant");
  if (reply >= 0 && previous >= 0) marked.add(previous);
  // Messages are built fresh for each request, so marking copies keeps nothing shared mutable; tools are shared: copied.
  const out = prompt.map((message, i) => (marked.has(i) ? mark(message, control) : message)) as Prompt;
  const last = tools?.at(-1);
  const cachedTools =
    tools && last && control.namespace === "anthropic" ? [...tools.slice(0, -1), { ...last, providerOptions: { anthropic: control.value } }] : tools;
  return { prompt: out, tools: cachedTools };
}

/** OpenAI Responses options that keep one conversation's requests on one cache: nothing for other APIs or when caching is off. */
export function openaiCacheOptions(endpoint: ProviderEndpoint, cacheKey: string | undefined): { promptCacheKey?: string } {
  if (endpoint.api !== "openai" || endpoint.promptCache === "off" || !cacheKey) return {};
  return { promptCacheKey: cacheKey.length <= MAX_CACHE_KEY_CHARS ? cacheKey : cacheKey.slice(0, MAX_CACHE_KEY_CHARS) };
}

/** Anthropic bills 1-hour cache writes at twice the input price (5-minute ones at 1.25×, the catalog's `cacheWrite`). */
export function longCachePrice(price: NonNullable<ModelInfo["price"]>): NonNullable<ModelInfo["price"]> {
  return { ...price, cacheWrite: price.input * 2 };
}

function mark(message: Message, control: Mark): Message {
  const { namespace, value } = control;
  return { ...message, providerOptions: { ...message.providerOptions, [namespace]: { ...message.providerOptions?.[namespace], ...value } } } as Message;
}

function lastIndex(prompt: Prompt, from: number, test: (message: Message) => boolean): number {
  for (let i = from; i >= 0; i -= 1) if (test(prompt[i]!)) return i;
  return -1;
}
