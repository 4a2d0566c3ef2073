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

/** The provider tool for the request's search, or undefined when none is asked for or the API has none. */
export function providerSearchTool(api: ProviderApi, search: ModelRequest["webSearch"]): ProviderTool | undefined {
  if (!search) return undefined;
  switch (api) {
    case "anthropic":
      return { type: "provider", id: "anthropic.web_search_20250305", name: PROVIDER_SEARCH_TOOL, args: { maxUses: search.maxUses } };
    case "openai":
      // OpenAI takes no per-request bound; the turn's request budget bounds it.
      return { type: "provider", id: "openai.web_search", name: PROVIDER_SEARCH_TOOL, args: {} };
    default:
      return undefined;
  }
}

/** What a provider's search looked for and found, read from its call and output for the user (never for the model). */
export interface SearchSummary {
  query?: string;
  results: Array<{ title?: string; url: string }>;
}

/** Shown results are bounded: a provider may return many, and the user needs the first few to follow the answer. */
const MAX_SHOWN_RESULTS = 20;

/** Reads Anthropic's result list (`[{url, title, …}]`) or OpenAI's `{action: {query}, sources}`; anything else yields what it can. */
export function summariseSearch(input: unknown, output: unknown): SearchSummary {
  const summary: SearchSummary = { results: [] };
  const query = field(input, "query") ?? field(field(output, "action"), "query");
  if (typeof query === "string" && query) summary.query = query;
  const list = Array.isArray(output) ? output : field(output, "sources");
  if (Array.isArray(list)) {
    for (const item of list) {
      const url = field(item, "url");
      if (typeof url !== "string" || !url) continue;
      const title = field(item, "title");
      summary.results.push({ url, ...(typeof title === "string" && title ? { title } : {}) });
      if (summary.results.length >= MAX_SHOWN_RESULTS) break;
    }
  }
  return summary;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}
