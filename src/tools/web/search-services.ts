/**
 * The search services the `web_search` tool can ask: how each takes a query (address, key, body) and where
 * its answer keeps titles, links and snippets. SearXNG is the user's own instance (a URL); Brave, Tavily and
 * Exa are keyed APIs with a default address. An answer is read defensively: anything not a string where a
 * string belongs is skipped, so a service returning garbage yields no results, never a crash.
 * @module
 */

export type SearchServiceName = "searxng" | "brave" | "tavily" | "exa";

/** One search result as the tool returns it. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** The request for one search. */
export interface ServiceRequest {
  url: URL;
  headers: Record<string, string>;
  /** JSON body for services that take a POST. */
  jsonBody?: string;
}

interface Service {
  /** The address used when the settings name none. */
  defaultUrl?: string;
  request(base: URL, query: string, count: number, key: string | undefined): ServiceRequest;
  /** The result list of the service's JSON answer (unchecked items). */
  items(answer: unknown): unknown;
  /** The snippet field of one item. */
  snippet: string;
}

const SERVICES: Record<SearchServiceName, Service> = {
  searxng: {
    request(base, query) {
      const url = new URL("search", base.href.endsWith("/") ? base : new URL(`${base.href}/`));
      url.searchParams.set("q", query);
      url.searchParams.set("format", "json");
      return { url, headers: {} };
    },
    items: (answer) => field(answer, "results"),
    snippet: "content",
  },
  brave: {
    defaultUrl: "https://api.search.brave.com/res/v1/web/search",
    request(base, query, count, key) {
      const url = new URL(base.href);
      url.searchParams.set("q", query);
      url.searchParams.set("count", String(count));
      return { url, headers: keyHeader("x-subscription-token", key) };
    },
    items: (answer) => field(field(answer, "web"), "results"),
    snippet: "description",
  },
  tavily: {
    defaultUrl: "https://api.tavily.com/search",
    request(base, query, count, key) {
      return { url: new URL(base.href), headers: keyHeader("authorization", key && `Bearer ${key}`), jsonBody: JSON.stringify({ query, max_results: count }) };
    },
    items: (answer) => field(answer, "results"),
    snippet: "content",
  },
  exa: {
    defaultUrl: "https://api.exa.ai/search",
    request(base, query, count, key) {
      const body = { query, numResults: count, contents: { text: { maxCharacters: SNIPPET_CHARS } } };
      return { url: new URL(base.href), headers: keyHeader("x-api-key", key), jsonBody: JSON.stringify(body) };
    },
    items: (answer) => field(answer, "results"),
    snippet: "text",
  },
};

/** Characters kept of a title, and of a snippet: a result is a pointer to a page, not the page. */
const TITLE_CHARS = 200;
const SNIPPET_CHARS = 500;
const URL_CHARS = 2000;

/** The service's address: the configured one, else its default; undefined when it has neither (SearXNG without a URL). */
export function serviceUrl(service: SearchServiceName, configured: string | undefined): URL | undefined {
  const text = configured ?? SERVICES[service].defaultUrl;
  return text && URL.canParse(text) ? new URL(text) : undefined;
}

export function serviceRequest(service: SearchServiceName, base: URL, query: string, count: number, key: string | undefined): ServiceRequest {
  return SERVICES[service].request(base, query, count, key);
}

/** The results of a service's answer (parsed JSON), at most `count`, each bounded; only http(s) links are kept. */
export function serviceResults(service: SearchServiceName, answer: unknown, count: number): SearchResult[] {
  const items = SERVICES[service].items(answer);
  if (!Array.isArray(items)) return [];
  const results: SearchResult[] = [];
  for (const item of items) {
    const text = field(item, "url");
    if (typeof text !== "string" || text.length > URL_CHARS || !URL.canParse(text)) continue;
    // The parsed spelling: no line break or blank a result could use to pass text off as another result's link.
    const parsed = new URL(text);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") continue;
    const url = parsed.href;
    const title = field(item, "title");
    const snippet = field(item, SERVICES[service].snippet);
    results.push({ url, title: typeof title === "string" ? oneLine(title, TITLE_CHARS) : "", snippet: typeof snippet === "string" ? oneLine(snippet, SNIPPET_CHARS) : "" });
    if (results.length >= count) break;
  }
  return results;
}

/** Whether the service's answer has the shape of one (a list where the results belong), even an empty one. */
export function isServiceAnswer(service: SearchServiceName, answer: unknown): boolean {
  return Array.isArray(SERVICES[service].items(answer));
}

function keyHeader(name: string, value: string | undefined): Record<string, string> {
  return value ? { [name]: value } : {};
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
}
