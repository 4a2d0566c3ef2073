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
import { log } from "../runtime/log.ts";
import { env } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { serviceUrl } from "../tools/web/search-services.ts";
import { createWebSearchTool } from "../tools/web/web-search.ts";

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

/**
 * The `web_search` tool on the search service the user's settings name, or undefined when they name none, turn
 * search off, or the service's key is not in the environment (then the models that need it search nothing).
 */
export function searchServiceTool(settings: Settings): ToolDefinition | undefined {
  const search = settings.webSearch;
  if (typeof search !== "object" || !search.service || !webSearchOn(settings)) return undefined;
  const url = serviceUrl(search.service, search.url);
  if (!url) return undefined;
  let key: string | undefined;
  if (search.apiKeyEnv) {
    key = env(search.apiKeyEnv);
    if (!key) {
      log.warn(`webSearch: ${search.apiKeyEnv} is not set, so the ${search.service} search service is not offered`);
      return undefined;
    }
    // The key never reaches a log, an answer or the session's file.
    registerSecret(key);
  }
  return createWebSearchTool({
    service: search.service,
    url,
    ...(key ? { key } : {}),
    ...(search.maxResults !== undefined ? { maxResults: search.maxResults } : {}),
    ...(search.timeoutSeconds !== undefined ? { timeoutMs: search.timeoutSeconds * 1000 } : {}),
  });
}
