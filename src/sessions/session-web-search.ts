/**
 * Whether a session's models search the web, from its settings: the provider's own search is on unless
 * `webSearch` is `false` or a `deny` rule names the `web_search` tool; the search service's tool is offered
 * on the same terms, when the user's settings name a service. Provider search asks nobody (it runs inside the
 * provider's answer and tells the provider nothing it does not already hold); the service's calls pass the
 * permission policy like a `fetch` of the service's host.
 * @module
 */
import type { Settings } from "../config/settings-schema.ts";
import { matchToolRules } from "../permissions/rules.ts";
import { PROVIDER_SEARCH_TOOL } from "../models/provider-search.ts";

/** Searches one model request may run at most when the settings do not say (Anthropic's `max_uses`). */
export const DEFAULT_MAX_SEARCHES = 5;

/** Whether the settings leave web search on at all. */
export function webSearchOn(settings: Settings): boolean {
  if (settings.webSearch === false) return false;
  return matchToolRules(settings.permissionRules ?? [], PROVIDER_SEARCH_TOOL)?.rule.action !== "deny";
}

/** The provider's own search of a session's requests, or undefined when the settings turn it off. */
export function providerSearchOf(settings: Settings): { maxUses: number } | undefined {
  if (!webSearchOn(settings)) return undefined;
  const search = settings.webSearch;
  return { maxUses: (typeof search === "object" ? search.maxUses : undefined) ?? DEFAULT_MAX_SEARCHES };
}

/** Whether the settings name a search service (its tool is then loaded with the session: see search-service-tool.ts). */
export function searchServiceNamed(settings: Settings): boolean {
  return typeof settings.webSearch === "object" && settings.webSearch.service !== undefined && webSearchOn(settings);
}
