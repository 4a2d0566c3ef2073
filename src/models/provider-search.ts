/**
 * The providers' own web search, offered as a provider-defined tool of the request: Anthropic's server tool
 * (`web_search_20250305`, bounded by `max_uses`) and OpenAI Responses' `web_search`. The provider runs the
 * search inside its answer; the stream reports it as a provider-executed call and result. Other APIs have none.
 * @module
 */
import type { CallOptions } from "./ai-sdk-v3.ts";
import type { ModelRequest, ProviderApi } from "./types.ts";

type ProviderTool = Extract<NonNullable<CallOptions["tools"]>[number], { type: "provider" }>;

/** The tool name both providers give their search, in requests and in the calls they report. */
export const PROVIDER_SEARCH_TOOL = "web_search";

/** Whether `api` has a search of its own. */
export function hasProviderSearch(api: ProviderApi): boolean {
  return api === "anthropic" || api === "openai";
}

/**
 * The provider tool for the request's search, or undefined when none is asked for or the API has none.
 * `minimalReasoning`: the request asks a reasoning model for minimal effort, with which OpenAI's models refuse the search tool.
 */
export function providerSearchTool(api: ProviderApi, search: ModelRequest["webSearch"], minimalReasoning = false): ProviderTool | undefined {
  if (!search) return undefined;
  switch (api) {
    case "anthropic":
      return { type: "provider", id: "anthropic.web_search_20250305", name: PROVIDER_SEARCH_TOOL, args: { maxUses: search.maxUses } };
    case "openai":
      if (minimalReasoning) return undefined;
      // OpenAI takes no per-request bound; the turn's request budget bounds it.
      return { type: "provider", id: "openai.web_search", name: PROVIDER_SEARCH_TOOL, args: {} };
    default:
      return undefined;
  }
}
