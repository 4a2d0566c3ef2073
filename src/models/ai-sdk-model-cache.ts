/**
 * Provider models shared by every session that uses the same model through
 * the same endpoint. A provider model holds no per-request state, but some
 * build their response schemas when created (about 100 zod schemas for an
 * OpenAI-compatible chat model): one per session made each idle session
 * cost about 150 KB. The cache is bounded; an evicted model is simply built
 * again. Keys hold the API key, in memory only, so a changed key gets its
 * own model; and everything else a provider model is built from (a cloud's
 * project, location, region, resource, API version, how the key is sent,
 * where Google's credentials come from), so a changed setting never keeps
 * the old one's client.
 * @module
 */
import type { LanguageModel } from "./ai-sdk-v3.ts";
import type { ModelInfo, ProviderEndpoint } from "./types.ts";

/** Distinct models a process keeps; far more than one agent uses at a time. */
const LIMIT = 32;
const models = new Map<string, Promise<LanguageModel>>();

/** The shared model for `info` at `endpoint`, built with `build` the first time (a failed build is not kept). */
export function sharedModel(info: ModelInfo, endpoint: ProviderEndpoint, build: () => Promise<LanguageModel>): Promise<LanguageModel> {
  const key = endpointKey(info, endpoint);
  let model = models.get(key);
  if (model) {
    // Most recently used last, so eviction takes the oldest.
    models.delete(key);
    models.set(key, model);
    return model;
  }
  model = build();
  models.set(key, model);
  model.catch(() => models.get(key) === model && models.delete(key));
  if (models.size > LIMIT) models.delete(models.keys().next().value!);
  return model;
}

/** Everything the provider model for `info` at `endpoint` is built from. */
function endpointKey(info: ModelInfo, endpoint: ProviderEndpoint): string {
  const { api, provider, baseUrl, apiKey, headers, project, location, google, region, resourceName, apiVersion, entra } = endpoint;
  const googleSource = google ? (google.kind === "file" ? ["file", google.path] : ["metadata"]) : null;
  return JSON.stringify([api, provider, baseUrl ?? null, apiKey ?? null, headers ?? null, project ?? null, location ?? null, googleSource, region ?? null, resourceName ?? null, apiVersion ?? null, entra === true, info.id]);
}
