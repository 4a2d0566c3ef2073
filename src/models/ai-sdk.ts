/**
 * `ModelClient` on the Vercel AI SDK (v6). One `stream()` is one model
 * request: tools have no `execute`, the engine runs the tool loop. The SDK
 * and its providers are imported on the first call, not at startup, to keep
 * cold start fast.
 * @module
 */
import type { JSONSchema7, LanguageModel, TextStreamPart, ToolSet } from "ai";
import { log } from "../runtime/log.ts";
import { toModelError } from "./ai-sdk-errors.ts";
import { contentEvent, finishCause, toUsage } from "./ai-sdk-events.ts";
import { toSdkMessages } from "./ai-sdk-messages.ts";
import { REHEARSAL_BASE_URL, rehearsalFetch } from "./ai-sdk-rehearsal.ts";
import { thinkingSettings } from "./thinking-options.ts";
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

type Ai = typeof import("ai");
type Part = TextStreamPart<ToolSet>;
type ProviderOptions = Record<string, Record<string, unknown>>;
type SdkProviderOptions = NonNullable<Parameters<Ai["streamText"]>[0]["providerOptions"]>;

const ANTHROPIC_URL = "https://api.anthropic.com/v1";
const OPENAI_URL = "https://api.openai.com/v1";

let aiModule: Promise<Ai> | undefined;

/** Loads `ai` once per process; a failed load is retried on the next call. */
function loadAi(): Promise<Ai> {
  aiModule ??= import("ai").then(
    (ai) => {
      // The SDK prints warnings to stderr by default; they surface in debug logs instead.
      (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;
      return ai;
    },
    (error: unknown) => {
      aiModule = undefined;
      throw error;
    },
  );
  return aiModule;
}

/**
 * Builds the SDK model. Key and base URL are always passed explicitly so the
 * SDK never falls back to `ANTHROPIC_API_KEY`, `OPENAI_BASE_URL` and friends.
 */
async function languageModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch?: typeof globalThis.fetch): Promise<LanguageModel> {
  const { baseUrl, apiKey, headers } = endpoint;
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
  }
}

/** A `ModelClient` for `info`, reached through `endpoint`. */
export function createAiSdkModel(info: ModelInfo, endpoint: ProviderEndpoint): ModelClient {
  const target = withBaseUrl(endpoint);
  let model: Promise<LanguageModel> | undefined;
  let prepared: Promise<void> | undefined;
  let streamed = false;
  const getModel = () => {
    model ??= languageModel(info, target).catch((error: unknown) => {
      model = undefined;
      throw error;
    });
    return model;
  };
  return {
    info,
    stream: (request) => {
      streamed = true;
      return streamRequest(info, target, request, getModel);
    },
    prepare: () => {
      // A failure here is not reported: the turn that needs the model loads it again and reports it.
      // Once a real request has gone out, the rehearsal would only compete with it.
      prepared ??= Promise.all([loadAi(), getModel()]).then(() => (streamed ? undefined : rehearse(info, target.api)), () => undefined);
      return prepared;
    },
  };
}

/** Apis whose rehearsal ran (or runs) in this process: once each is enough, the SDK's lazy parts are then built. */
const rehearsals = new Map<ProviderEndpoint["api"], Promise<void>>();

/** Streams one canned reply through the same path a turn takes (messages, tools, provider options, parsing). */
function rehearse(info: ModelInfo, api: ProviderEndpoint["api"]): Promise<void> {
  let done = rehearsals.get(api);
  if (!done) {
    const endpoint: ProviderEndpoint = { provider: info.provider, api, baseUrl: REHEARSAL_BASE_URL, apiKey: "rehearsal", maxRetries: 0 };
    const model = languageModel(info, endpoint, rehearsalFetch(api));
    const request: ModelRequest = {
      system: "rehearsal",
      messages: [{ role: "user", content: [{ type: "text", text: "rehearsal" }] }],
      tools: [{ name: "rehearsal", description: "rehearsal", inputSchema: { type: "object", properties: { path: { type: "string" } } } }],
      thinking: "off",
      signal: new AbortController().signal,
    };
    done = (async () => {
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
  if (endpoint.baseUrl || endpoint.api === "openai-compatible") return endpoint;
  return { ...endpoint, baseUrl: endpoint.api === "anthropic" ? ANTHROPIC_URL : OPENAI_URL };
}

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
  const forwardAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", forwardAbort, { once: true });
  let reader: ReadableStreamDefaultReader<Part> | undefined;
  let completed = false;
  try {
    const [ai, sdkModel] = await untilAborted(Promise.all([loadAi(), getModel()]), signal);
    const settings = thinkingSettings(info, endpoint.api, request.thinking);
    const result = ai.streamText({
      model: sdkModel,
      system: request.system || undefined,
      messages: toSdkMessages(request.messages, endpoint),
      tools: sdkTools(ai, request.tools),
      maxOutputTokens: settings.maxOutputTokens,
      providerOptions: providerOptions(info, endpoint, settings.providerOptions) as SdkProviderOptions | undefined,
      maxRetries: endpoint.maxRetries,
      abortSignal: controller.signal,
      // The default handler prints the error to the console; we rethrow it instead.
      onError: () => {},
    });
    reader = result.fullStream.getReader();
    let finish: { cause: FinishCause; usage: Usage } | undefined;
    for (;;) {
      const { done, value: part } = await untilAborted(reader.read(), signal);
      if (done) break;
      const event = contentEvent(part);
      if (event) {
        yield event;
        continue;
      }
      switch (part.type) {
        case "start-step":
          for (const warning of part.warnings) log.debug(`${endpoint.provider}: AI SDK warning`, warning);
          break;
        case "finish-step":
          finish = { cause: finishCause(part.finishReason, part.rawFinishReason), usage: toUsage(part.usage) };
          break;
        case "finish":
          finish = { cause: finishCause(part.finishReason, part.rawFinishReason), usage: toUsage(part.totalUsage) };
          break;
        case "error":
          throw part.error;
        case "abort":
          throw abortReason(signal);
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

/** SDK tool objects by spec: specs are cached per tool, so each is wrapped once, not on every request. */
const sdkToolCache = new WeakMap<ToolSpec, ToolSet[string]>();

function sdkTools(ai: Ai, specs: readonly ToolSpec[]): ToolSet | undefined {
  if (specs.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const spec of specs) {
    let tool = sdkToolCache.get(spec);
    if (!tool) {
      // No `execute` and no validation: the engine validates input and runs the tool.
      tool = { description: spec.description, inputSchema: ai.jsonSchema(spec.inputSchema as JSONSchema7) };
      sdkToolCache.set(spec, tool);
    }
    tools[spec.name] = tool;
  }
  return tools;
}

/** Thinking options plus the per-API settings every request needs. */
function providerOptions(info: ModelInfo, endpoint: ProviderEndpoint, thinking: ProviderOptions | undefined) {
  const options: ProviderOptions = { ...thinking };
  if (endpoint.api === "openai") {
    // Stateless Responses: reasoning travels back as encrypted content instead of server-side item references,
    // and the catalog, not the model-id heuristics, says whether the model reasons.
    options.openai = { ...options.openai, store: false, forceReasoning: info.reasoning };
  }
  return Object.keys(options).length > 0 ? options : undefined;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
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
