/**
 * `ModelClient` on the AI SDK's provider packages. One `stream()` is one
 * model request, made with the provider model's own `doStream`: the engine
 * runs the tool loop, so the SDK's `streamText` layer (and the `ai` package)
 * would only add work per streamed part. Provider packages are imported on
 * the first call, not at startup, to keep cold start fast.
 * @module
 */
import { abortReason } from "../runtime/abort-reason.ts";
import { log } from "../runtime/log.ts";
import { platformFetch } from "../runtime/fetch/platform-fetch.ts";
import { toModelError } from "./ai-sdk-errors.ts";
import { contentEvent, finishCause, toUsage } from "./ai-sdk-events.ts";
import { toPrompt } from "./ai-sdk-messages.ts";
import { hasRehearsal, nextTask, REHEARSAL_BASE_URL, rehearsalFetch } from "./ai-sdk-rehearsal.ts";
import { sharedModel } from "./ai-sdk-model-cache.ts";
import { withRetries } from "./ai-sdk-retry.ts";
import { openaiCacheOptions, withCacheBreakpoints } from "./prompt-cache.ts";
import { hasProviderSearch, providerSearchTool } from "./provider-search.ts";
import type { CallOptions, FunctionTool, LanguageModel, StreamPart } from "./ai-sdk-v3.ts";
import { thinkingSettings } from "./thinking-options.ts";
import { wireOf } from "./wire.ts";
import {
  type FinishCause,
  ModelError,
  type ModelClient,
  type ModelEvent,
  type ModelInfo,
  type ModelRequest,
  type ProviderEndpoint,
  type ToolSpec,
  type Usage,
} from "./types.ts";

type ProviderOptions = Record<string, Record<string, unknown>>;

const ANTHROPIC_URL = "https://api.anthropic.com/v1";
const OPENAI_URL = "https://api.openai.com/v1";

/**
 * Builds the provider package's model. Key and base URL are always passed explicitly so the
 * SDK never falls back to `ANTHROPIC_API_KEY`, `OPENAI_BASE_URL` and friends.
 */
async function languageModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch?: typeof globalThis.fetch): Promise<LanguageModel> {
  const { baseUrl, apiKey, headers } = endpoint;
  fetch ??= await platformFetch();
  switch (endpoint.api) {
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ baseURL: baseUrl, apiKey: apiKey ?? "", headers, fetch })(info.id);
    }
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({ baseURL: baseUrl, apiKey: apiKey ?? "", headers, fetch }).responses(info.id);
    }
    case "openai-compatible": {
      if (!baseUrl) throw new ModelError(`${endpoint.provider}: no base URL configured for this OpenAI-compatible provider`);
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name: endpoint.provider, baseURL: baseUrl, apiKey, headers, includeUsage: true, fetch }).chatModel(
        info.id,
      );
    }
    default: {
      // The clouds' packages and credential libraries are large: loaded only by a session that uses one.
      const { cloudLanguageModel } = await import("./cloud/cloud-model.ts");
      return cloudLanguageModel(info, endpoint, fetch);
    }
  }
}

/** A `ModelClient` for `info`, reached through `endpoint`. */
export function createAiSdkModel(info: ModelInfo, endpoint: ProviderEndpoint): ModelClient {
  const target = withBaseUrl(endpoint);
  let model: Promise<LanguageModel> | undefined;
  let prepared: Promise<void> | undefined;
  let streamed = false;
  // A real request stops the rehearsal: the two would only compete, and the real one builds the same.
  const rehearsalStop = new AbortController();
  const getModel = () => {
    model ??= sharedModel(info, target, () => languageModel(info, target)).catch((error: unknown) => {
      model = undefined;
      throw error;
    });
    return model;
  };
  return {
    info,
    providerSearch: hasProviderSearch(endpoint.api),
    stream: (request) => {
      streamed = true;
      rehearsalStop.abort(new Error("a real request started"));
      return streamRequest(info, target, request, getModel);
    },
    prepare: () => {
      // A failure here is not reported: the turn that needs the model loads it again and reports it.
      // Once a real request has gone out, the rehearsal would only compete with it.
      prepared ??= getModel().then(() => (streamed ? undefined : rehearse(info, target.api, rehearsalStop.signal)), () => undefined);
      return prepared;
    },
  };
}

/** Apis whose rehearsal ran (or runs) in this process: once each is enough, the provider's lazy parts are then built. */
const rehearsals = new Map<ProviderEndpoint["api"], Promise<void>>();

/**
 * Streams one canned reply through the same path a turn takes (messages, tools, provider options,
 * parsing), a step per macrotask so a request arriving meanwhile is read at once; `stop` ends it.
 */
function rehearse(info: ModelInfo, api: ProviderEndpoint["api"], stop: AbortSignal): Promise<void> {
  if (!hasRehearsal(api)) return Promise.resolve();
  let done = rehearsals.get(api);
  if (!done) {
    const endpoint: ProviderEndpoint = { provider: info.provider, api, baseUrl: REHEARSAL_BASE_URL, apiKey: "rehearsal", maxRetries: 0 };
    const model = languageModel(info, endpoint, rehearsalFetch(api));
    const request: ModelRequest = {
      system: "rehearsal",
      messages: [{ role: "user", content: [{ type: "text", text: "rehearsal" }] }],
      tools: [{ name: "rehearsal", description: "rehearsal", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
      thinking: "off",
      signal: stop,
    };
    done = (async () => {
      await nextTask();
      if (stop.aborted) return;
      for await (const _event of streamRequest(info, endpoint, request, () => model)) {
        // Drained only for what it builds.
      }
    })().catch((error: unknown) => log.debug(`${info.provider}: the warm-up reply failed`, error));
    rehearsals.set(api, done);
  }
  return done;
}

/** Fills in the vendor's base URL so the SDK never consults `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`. */
function withBaseUrl(endpoint: ProviderEndpoint): ProviderEndpoint {
  if (endpoint.baseUrl || (endpoint.api !== "anthropic" && endpoint.api !== "openai")) return endpoint;
  return { ...endpoint, baseUrl: endpoint.api === "anthropic" ? ANTHROPIC_URL : OPENAI_URL };
}

/** One model request: the provider's own `doStream`, retried before it streams, its parts mapped to our events. */
async function* streamRequest(
  info: ModelInfo,
  endpoint: ProviderEndpoint,
  request: ModelRequest,
  getModel: () => Promise<LanguageModel>,
): AsyncGenerator<ModelEvent> {
  const { signal } = request;
  if (signal.aborted) throw abortReason(signal);
  // Our own controller also fires when the consumer stops iterating early, so the HTTP request never lingers.
  const controller = new AbortController();
  let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
  // Cancelling the reader ends a pending read at once, so an abort needs no per-read race.
  const forwardAbort = () => {
    controller.abort(signal.reason);
    reader?.cancel().catch(() => {});
  };
  signal.addEventListener("abort", forwardAbort, { once: true });
  let completed = false;
  try {
    const model = await untilAborted(getModel(), signal);
    const wire = wireOf(endpoint.api, info.id);
    const settings = thinkingSettings(info, wire, request.thinking);
    // Every model request of the project passes here, so caching applies to turns, compaction and anything else alike.
    const cached = withCacheBreakpoints(toPrompt(request.system, request.messages, endpoint, wire), functionTools(request.tools), endpoint, request.once, wire, info.id);
    const { prompt } = cached;
    // The provider's search goes after the cached function tools: the same every request, so the prefix stays byte-stable.
    const search = providerSearchTool(endpoint.api, request.webSearch, info.reasoning && request.thinking === "minimal");
    const tools: CallOptions["tools"] = search ? [...(cached.tools ?? []), search] : cached.tools;
    const options: CallOptions = {
      prompt,
      maxOutputTokens: settings.maxOutputTokens,
      ...(tools ? { tools, toolChoice: { type: "auto" } } : {}),
      providerOptions: providerOptions(info, endpoint, settings.providerOptions, request.cacheKey) as CallOptions["providerOptions"],
      abortSignal: controller.signal,
    };
    const { stream } = await untilAborted(withRetries(async () => model.doStream(options), endpoint.maxRetries, controller.signal), signal);
    reader = stream.getReader();
    if (signal.aborted) throw abortReason(signal);
    let finish: { cause: FinishCause; usage: Usage } | undefined;
    // Searches the provider ran, for providers whose usage does not count them.
    let searches = 0;
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      const event = contentEvent(part);
      if (event) {
        if (event.type === "server_tool_result" && !event.isError) searches += 1;
        yield event;
        continue;
      }
      switch (part.type) {
        case "stream-start":
          for (const warning of part.warnings) log.debug(`${endpoint.provider}: provider warning`, warning);
          break;
        case "finish":
          finish = { cause: finishCause(part.finishReason), usage: toUsage(part.usage, searches) };
          break;
        case "error":
          throw part.error;
      }
    }
    if (signal.aborted) throw abortReason(signal);
    if (!finish) throw new ModelError(`${endpoint.provider}: the response stream ended without a finish`);
    completed = true;
    yield { type: "finish", ...finish };
  } catch (error) {
    if (signal.aborted) throw abortReason(signal);
    throw toModelError(error, endpoint);
  } finally {
    signal.removeEventListener("abort", forwardAbort);
    if (!completed) controller.abort();
    reader?.cancel().catch(() => {});
  }
}

/** Tool definitions by spec: specs are cached per tool, so each is converted once, not on every request. */
const toolCache = new WeakMap<ToolSpec, FunctionTool>();

function functionTools(specs: readonly ToolSpec[]): FunctionTool[] | undefined {
  if (specs.length === 0) return undefined;
  return specs.map((spec) => {
    let tool = toolCache.get(spec);
    if (!tool) {
      // The engine validates input and runs the tool; the provider only needs the schema.
      tool = { type: "function", name: spec.name, description: spec.description, inputSchema: spec.inputSchema as FunctionTool["inputSchema"] };
      toolCache.set(spec, tool);
    }
    return tool;
  });
}

/** Thinking options plus the per-API settings every request needs. */
function providerOptions(info: ModelInfo, endpoint: ProviderEndpoint, thinking: ProviderOptions | undefined, cacheKey: string | undefined) {
  const options: ProviderOptions = { ...thinking };
  if (endpoint.api === "openai") {
    // Stateless Responses: reasoning travels back as encrypted content instead of server-side item references,
    // and the catalog, not the model-id heuristics, says whether the model reasons.
    options.openai = { ...options.openai, store: false, forceReasoning: info.reasoning, ...openaiCacheOptions(endpoint, cacheKey) };
  }
  return Object.keys(options).length > 0 ? options : undefined;
}

/** Settles with `promise`, or rejects with the abort reason as soon as `signal` fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
