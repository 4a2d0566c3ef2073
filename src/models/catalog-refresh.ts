/**
 * Keeps the model catalogue current between releases, when the user's settings
 * ask for it (`"catalog": {"refresh": true}`: off by default, since it is a
 * request to a third party the user did not make, and it would pass through
 * their proxy): once a day at most, the agent asks models.dev (or the mirror `catalog.url` names) for its data and
 * keeps what it drives in `<home>/catalog-cache.json`, which later sessions use
 * in place of the shipped snapshot. It runs in the background after a turn
 * was answered, so no session waits for it; the request is bounded in time
 * and size; a body that is not models.dev's data is refused whole (every field
 * is checked) and the snapshot, or the last good copy, stays. Without a
 * network it fails quietly and tries again the next time it runs.
 * @module
 */
import { log } from "../runtime/log.ts";
import { platformFetch } from "../runtime/fetch/platform-fetch.ts";
import { readTextFile, statOrUndefined, writeFileAtomic } from "../runtime/files/fs.ts";
import { join } from "../runtime/files/path.ts";
import { useFresherCatalog } from "./catalog.ts";
import { catalogFromApi, checkedRows } from "./catalog-data/models-dev.ts";
import type { CatalogRow } from "./catalog-data/row.ts";

export const DEFAULT_CATALOG_URL = "https://models.dev/api.json";
/** A day: models.dev changes a few times a week. */
const MAX_AGE_MS = 24 * 60 * 60 * 1000;
const TIMEOUT_MS = 20_000;
/** models.dev's whole api.json is a few MiB. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** What the cache may hold; the rows the agent keeps are far smaller than the body. */
const MAX_CACHE_BYTES = 2 * 1024 * 1024;
export const CACHE_FILE = "catalog-cache.json";

export interface CatalogRefreshOptions {
  home: string;
  /** `catalog` of the user's settings. */
  settings?: { refresh?: boolean; url?: string };
  now?: number;
}

export type RefreshOutcome = "off" | "cached" | "updated" | "refused" | "unreachable";

/** The body of `response`, refused once it passes `max` bytes (the stream is cancelled, not read to its end). */
async function boundedText(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > max) throw new Error(`the catalogue is larger than ${max} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`the catalogue is larger than ${max} bytes`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** The cached rows and when they were fetched, or undefined when there is no usable cache. */
async function readCache(path: string): Promise<{ fetchedAt: number; rows: Map<string, CatalogRow[]> } | undefined> {
  const info = await statOrUndefined(path).catch(() => undefined);
  if (!info?.isFile || info.size > MAX_CACHE_BYTES) return undefined;
  try {
    const value = JSON.parse(await readTextFile(path)) as { fetchedAt?: unknown; rows?: unknown };
    if (typeof value.fetchedAt !== "number" || !Number.isFinite(value.fetchedAt)) return undefined;
    return { fetchedAt: value.fetchedAt, rows: checkedRows(value.rows) };
  } catch (error) {
    log.debug("the catalogue cache cannot be used", error);
    return undefined;
  }
}

let started: Promise<RefreshOutcome> | undefined;

/** Starts the refresh once per process (later calls get the same run). */
export function refreshCatalogOnce(options: CatalogRefreshOptions): Promise<RefreshOutcome> {
  started ??= refreshCatalog(options).catch((error: unknown) => {
    log.debug("the catalogue refresh failed", error);
    return "unreachable" as const;
  });
  return started;
}

/** Uses the cache, and fetches anew when it is older than a day. Never throws. */
export async function refreshCatalog(options: CatalogRefreshOptions): Promise<RefreshOutcome> {
  if (options.settings?.refresh !== true) return "off";
  const path = join(options.home, CACHE_FILE);
  const now = options.now ?? Date.now();
  const cached = await readCache(path);
  if (cached) await useFresherCatalog(cached.rows);
  if (cached && now - cached.fetchedAt < MAX_AGE_MS && cached.fetchedAt <= now) return "cached";
  const url = options.settings?.url ?? DEFAULT_CATALOG_URL;
  let text: string;
  try {
    const fetch = (await platformFetch()) ?? globalThis.fetch;
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "follow", headers: { accept: "application/json" } });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the catalogue server answered ${response.status}`);
    }
    text = await boundedText(response, MAX_BODY_BYTES);
  } catch (error) {
    log.debug("the catalogue could not be refreshed (no network?)", error);
    return "unreachable";
  }
  let rows: Map<string, CatalogRow[]>;
  try {
    rows = catalogFromApi(JSON.parse(text));
  } catch (error) {
    log.warn(`the catalogue refresh was refused, the catalogue stays as it was: ${error instanceof Error ? error.message.slice(0, 200) : "not JSON"}`);
    return "refused";
  }
  await useFresherCatalog(rows);
  try {
    await writeFileAtomic(path, JSON.stringify({ fetchedAt: now, rows: Object.fromEntries(rows) }), { mode: 0o600 });
  } catch (error) {
    log.debug("the catalogue cache could not be written", error);
  }
  return "updated";
}
