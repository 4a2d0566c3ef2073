/**
 * The model layer's types (the same idea as `types.ts` in tools/ and store/: a layer's contract).
 * The project's own model interface. The engine and the ACP layer depend on
 * these types only, never on a vendor SDK type, so the library underneath can
 * change without touching them.
 * @module
 */
import type { GoogleCredentialSource } from "../config/provider-types.ts";
import type { ProviderKind } from "../config/settings-schema.ts";

/** Reasoning effort, from none to the most a provider offers. */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

/** Opaque provider data that must travel back with a part on the next request (e.g. thinking signatures). */
export type ProviderData = Record<string, Record<string, unknown>>;

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image";
  /** Base64, without a data-URL prefix. */
  data: string;
  mimeType: string;
}

export interface ThinkingPart {
  type: "thinking";
  text: string;
  providerData?: ProviderData;
}

export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  input: unknown;
  providerData?: ProviderData;
}

export interface UserMessage {
  role: "user";
  content: Array<TextPart | ImagePart>;
}

export interface AssistantMessage {
  role: "assistant";
  content: Array<TextPart | ThinkingPart | ToolCallPart>;
  /** `provider/id` of the model that wrote it; provider data is only sent back to the same provider. */
  model?: string;
}

export interface ToolResultMessage {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: Array<TextPart | ImagePart>;
  isError: boolean;
}

export type ModelMessage = UserMessage | AssistantMessage | ToolResultMessage;

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema (draft 7 style) of the arguments object. */
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  thinking: ThinkingLevel;
  signal: AbortSignal;
  /**
   * Groups the requests of one conversation for the provider's prompt cache
   * (the session id); OpenAI routes requests with the same key to the same cache.
   */
  cacheKey?: string;
  /**
   * The conversation is sent this once (a compaction summary): only the tools and system
   * prompt are cached, since writing the messages would cost more and never be read.
   */
  once?: boolean;
}

/** Why a model call ended. */
export type FinishCause = "stop" | "length" | "tool_calls" | "refusal" | "other";

export interface Usage {
  /** Input tokens not served from a cache. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * What a model call streams. `text` and `thinking` are deltas; `block` names
 * the content block they belong to, so interleaved blocks stay apart.
 * A stream ends with exactly one `finish`, or throws a `ModelError`
 * (or an abort error when the request's signal fired).
 */
export type ModelEvent =
  | { type: "text"; block: string; text: string }
  | { type: "thinking"; block: string; text: string; providerData?: ProviderData }
  | { type: "tool_call"; id: string; name: string; input: unknown; providerData?: ProviderData }
  | { type: "finish"; cause: FinishCause; usage: Usage };

/** Static facts about a model, from the catalog or settings. */
export interface ModelInfo {
  provider: string;
  id: string;
  name: string;
  contextWindow: number;
  maxOutputTokens: number;
  reasoning: boolean;
  input: Array<"text" | "image">;
  /** USD per million tokens, when known. */
  price?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

/** One model, ready to be called. */
export interface ModelClient {
  readonly info: ModelInfo;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
  /**
   * Loads what the first `stream` would load (SDK, provider module, model
   * object) so that it does not wait for code loading. Idempotent; a `stream`
   * started meanwhile waits for the same loading. Never rejects.
   */
  prepare?(): Promise<void>;
}

/**
 * A provider failure the user should read: HTTP status, rate limit, bad
 * credentials, malformed stream. Messages are already free of secrets.
 */
export class ModelError extends Error {
  override name = "ModelError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The wire format of a request (see wire.ts): what caching, thinking and message shaping depend on. */
export type Wire = "anthropic" | "openai-responses" | "chat" | "gemini" | "converse";

/** Which kind of provider it is: its API, and for the clouds how it authenticates. */
export type ProviderApi = ProviderKind;

/** Where and how to reach a provider; built by the registry from settings and credentials. */
export interface ProviderEndpoint {
  /** Provider name as the user spells it (`anthropic`, `openai`, or a custom name such as `local`). */
  provider: string;
  api: ProviderApi;
  /** Base URL including the version segment (`…/v1`); undefined = the vendor default. */
  baseUrl?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Retries on 429/5xx before an error reaches the user. */
  maxRetries: number;
  /** Prompt caching: the provider's default retention (`short`, the default), its longer one (`long`), or none (`off`). */
  promptCache?: "off" | "short" | "long";
  /** `vertex`: project and location (unless `baseUrl` names them) and where the Google credentials come from. */
  project?: string;
  location?: string;
  google?: GoogleCredentialSource;
  /** `bedrock`: the AWS region the requests are signed for. */
  region?: string;
  /** `azure`: resource name (unless `baseUrl`), API version, and whether `apiKey` is an Entra token (`Authorization: Bearer`). */
  resourceName?: string;
  apiVersion?: string;
  entra?: boolean;
}
