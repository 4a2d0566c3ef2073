/**
 * The `web_search` tool of a session whose user settings name a search service: its address, and its key read
 * from the environment variable the settings name. Loaded only by sessions that have a service.
 * @module
 */
import type { Settings } from "../config/settings-schema.ts";
import { log } from "../runtime/log.ts";
import { env } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { serviceUrl } from "../tools/web/search-services.ts";
import { createWebSearchTool } from "../tools/web/web-search.ts";
import { searchServiceNamed } from "./session-web-search.ts";

/**
 * The `web_search` tool on the search service the user's settings name, or undefined when they name none, turn
 * search off, or the service's key is not in the environment (then the models that need it search nothing).
 */
export function searchServiceTool(settings: Settings): ToolDefinition | undefined {
  const search = settings.webSearch;
  if (!searchServiceNamed(settings) || typeof search !== "object" || !search.service) return undefined;
  const url = serviceUrl(search.service, search.url);
  if (!url) {
    log.warn(`webSearch: the ${search.service} search service needs a url, so it is not offered`);
    return undefined;
  }
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
