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
  /**
   * Text a hook added to the conversation (its context, a Stop hook's reason to go on): the model reads it,
   * but the user never typed it — it is no rewind point, no part of a message's fingerprint, not replayed as theirs.
   */
  addedBy?: "hook";
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

/**
 * A tool the provider ran inside its own answer (its web search): the call, and once it came back, its output.
 * Both go back to the same provider unchanged on later requests (Anthropic's results carry `encrypted_content`
 * the model reads them through); other providers never see them.
 */
export interface ServerToolPart {
  type: "server_tool";
  id: string;
  /** The provider's tool name (`web_search`). */
  name: string;
  input: unknown;
  /** The provider's output as it arrived (JSON); absent while (or when) the call has no result. */
  output?: unknown;
  isError?: boolean;
  providerData?: ProviderData;
}

/** A source the answer cites (a search result the provider linked to its text). */
export interface Citation {
  url: string;
  title?: string;
}

export interface UserMessage {
  role: "user";
  content: Array<TextPart | ImagePart>;
}

export interface AssistantMessage {
  role: "assistant";
  content: Array<TextPart | ThinkingPart | ToolCallPart | ServerToolPart>;
  /** Sources the answer cites, in the order the provider gave them (shown with the answer; never sent back). */
  citations?: Citation[];
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
  /**
   * Offers the provider's own web search (Anthropic's server tool, OpenAI's `web_search`) where the API has one,
   * bounded to `maxUses` searches per request where the provider takes a bound. Other APIs ignore it.
   */
  webSearch?: { maxUses: number };
}

/**
 * Why a model call ended. `pause`: the provider paused a long turn of its own tools (Anthropic's `pause_turn`);
 * sending the reply back as it is lets it go on.
 */
export type FinishCause = "stop" | "length" | "tool_calls" | "refusal" | "pause" | "other";

export interface Usage {
  /** Input tokens not served from a cache. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Searches the provider ran and bills per search (Anthropic's `server_tool_use.web_search_requests`, OpenAI's search calls). */
  webSearches?: number;
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
  /** The provider started one of its own tools (`server_tool`): nothing for the engine to run. */
  | { type: "server_tool_call"; id: string; name: string; input: unknown; providerData?: ProviderData }
  | { type: "server_tool_result"; id: string; name: string; output: unknown; isError: boolean; providerData?: ProviderData }
  | { type: "citation"; citation: Citation }
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
  /** `webSearch`: USD per search the provider runs itself. */
  price?: { input: number; output: number; cacheRead?: number; cacheWrite?: number; webSearch?: number };
}

/** One model, ready to be called. */
export interface ModelClient {
  readonly info: ModelInfo;
  /** The provider runs a web search of its own when a request asks for it (`ModelRequest.webSearch`). */
  readonly providerSearch?: boolean;
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
