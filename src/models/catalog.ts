/**
 * Facts about known models: context window, output limit, reasoning, image
 * input and list price (USD per million tokens), from the models.dev snapshot
 * that ships with the package (src/models/catalog-data/) or a newer copy the
 * agent fetched (catalog-refresh.ts). A provider's models load when that
 * provider is first needed, not with the program: `loadCatalog` first, then
 * the lookups here answer synchronously. Settings may add models or override
 * any field.
 * @module
 */
import type { CatalogRow } from "./catalog-data/row.ts";
import type { ModelInfo } from "./types.ts";

/** The offline scripted models: no snapshot, always there. */
const FAUX: Record<string, ModelInfo> = {
  echo: { provider: "faux", id: "echo", name: "Faux echo (offline)", contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: false, input: ["text", "image"], price: { input: 0, output: 0 } },
  script: { provider: "faux", id: "script", name: "Faux script (offline)", contextWindow: 128_000, maxOutputTokens: 16_384, reasoning: true, input: ["text", "image"], price: { input: 0, output: 0 } },
};

/** Used first when no model is configured, in this order. */
export const PREFERRED_DEFAULTS: Record<string, string> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5",
  google: "gemini-2.5-pro",
  vertex: "claude-sonnet-4-5@20250929",
  bedrock: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
};

/** Loaded models per provider, by id. */
const loaded = new Map<string, Map<string, ModelInfo>>();
const loading = new Map<string, Promise<void>>();
/** Rows fetched at run time that replace the snapshot's (see catalog-refresh.ts). */
let fresher: Map<string, CatalogRow[]> | undefined;

/** Every provider the catalogue has models for (which the snapshot's module knows: it is not loaded at start). */
export async function catalogProviders(): Promise<string[]> {
  const { SNAPSHOT_PROVIDERS } = await import("./catalog-data/snapshot.ts");
  return [...SNAPSHOT_PROVIDERS];
}

/** Loads the catalogue of `providers` (names it has nothing for are ignored); cheap once loaded. */
export async function loadCatalog(providers: Iterable<string>): Promise<void> {
  const waits: Promise<void>[] = [];
  for (const name of providers) {
    if (loaded.has(name)) continue;
    let wait = loading.get(name);
    if (!wait) {
      wait = (async () => {
        const { providerModels } = await import("./catalog-data/snapshot.ts");
        // A provider the catalogue has nothing of (a custom one) is remembered as empty.
        loaded.set(name, (await providerModels(name, fresher?.get(name))) ?? new Map());
      })();
      loading.set(name, wait);
      wait.catch(() => loading.delete(name));
    }
    waits.push(wait);
  }
  await Promise.all(waits);
}

/** Puts rows fetched at run time in place of the snapshot's, for every provider they cover. */
export async function useFresherCatalog(rows: Map<string, CatalogRow[]>): Promise<void> {
  fresher = rows;
  const { providerModels } = await import("./catalog-data/snapshot.ts");
  for (const [name, list] of rows) if (loaded.has(name)) loaded.set(name, (await providerModels(name, list))!);
}

/** Catalog ids of a provider (loaded by `loadCatalog`), sorted. */
export function catalogModelIds(provider: string): string[] {
  if (provider === "faux") return Object.keys(FAUX);
  return [...(loaded.get(provider)?.keys() ?? [])];
}

/** Whether the loaded catalogue of `provider` has `id`. */
export function isKnownModel(provider: string, id: string): boolean {
  return loaded.get(provider)?.has(id) ?? false;
}

/** A model's facts: its catalogue entry, else defaults suited to its provider. */
export function catalogInfo(provider: string, id: string): ModelInfo {
  if (provider === "faux" && FAUX[id]) return { ...FAUX[id] };
  const known = loaded.get(provider)?.get(id);
  if (known) return { ...known, input: [...known.input], ...(known.price ? { price: { ...known.price } } : {}) };
  return {
    provider,
    id,
    name: id,
    contextWindow: provider === "anthropic" ? 200_000 : 128_000,
    maxOutputTokens: provider === "anthropic" ? 32_000 : 16_384,
    reasoning: false,
    input: ["text", "image"],
  };
}
