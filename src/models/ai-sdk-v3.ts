/**
 * The provider packages' model interface (LanguageModelV3), named through
 * the package we depend on rather than its internal `@ai-sdk/provider`.
 * Types only: nothing here exists at run time.
 * @module
 */
import type { AnthropicProvider } from "@ai-sdk/anthropic";

/** A provider package's language model: `doStream` is all we call. */
export type LanguageModel = ReturnType<AnthropicProvider["languageModel"]>;
/** What `doStream` takes. */
export type CallOptions = Parameters<LanguageModel["doStream"]>[0];
/** The prompt: system, user, assistant and tool messages. */
export type Prompt = CallOptions["prompt"];
/** The function tools of a call. */
export type FunctionTool = Extract<NonNullable<CallOptions["tools"]>[number], { type: "function" }>;
/** One part of `doStream`'s stream. */
export type StreamPart = Awaited<ReturnType<LanguageModel["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;
/** Token counts as the providers report them. */
export type V3Usage = Extract<StreamPart, { type: "finish" }>["usage"];
/** The unified finish reason plus the provider's raw one. */
export type V3FinishReason = Extract<StreamPart, { type: "finish" }>["finishReason"];
