/**
 * What `acp-edge login` and `logout` write. Keys go to `auth.json` (mode
 * 0600, never through a symbolic link), keyed by provider, other entries
 * kept as they are. An OpenAI-compatible endpoint entered at login becomes a
 * provider of `settings.json` (`api`, `baseUrl`, the model id in `models`),
 * exactly as a user would write it by hand; its key, if it needs one, goes to
 * `auth.json` under the same name.
 * @module
 */
import type { HomePaths } from "./home.ts";
import { updateJsonFile, type JsonObject } from "./json-file-update.ts";
import { AuthFileSchema, SettingsSchema } from "./settings-schema.ts";

const AUTH_WRITE = { mode: 0o600, refuseLink: true } as const;

/** Stores `key` for `provider`, or removes its entry when `key` is undefined (an endpoint that needs none). */
export async function storeApiKey(paths: HomePaths, provider: string, key: string | undefined): Promise<void> {
  await updateJsonFile(
    paths.auth,
    AuthFileSchema,
    (current) => {
      if (key === undefined && !(current && provider in current)) return undefined;
      const next: JsonObject = { ...current };
      if (key === undefined) delete next[provider];
      else next[provider] = { type: "api_key", key };
      return next;
    },
    AUTH_WRITE,
  );
}

/** Removes the stored keys of `providers` (every stored key when undefined); resolves with the names removed. */
export async function removeApiKeys(paths: HomePaths, providers?: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  await updateJsonFile(
    paths.auth,
    AuthFileSchema,
    (current) => {
      removed.length = 0; // the change runs again when the file changed under it
      const next: JsonObject = { ...current };
      for (const name of Object.keys(next)) {
        if (providers && !providers.includes(name)) continue;
        delete next[name];
        removed.push(name);
      }
      return removed.length > 0 ? next : undefined;
    },
    AUTH_WRITE,
  );
  return removed;
}

/** An OpenAI-compatible endpoint as `settings.json` holds it. */
export interface EndpointEntry {
  baseUrl: string;
  modelId: string;
}

/**
 * Adds (or updates) provider `name` in `settings.json`: its base URL, and the
 * model id among its models. Its other fields (headers, model facts,
 * `apiKeyEnv`) and the rest of the file are kept.
 */
export async function storeEndpoint(paths: HomePaths, name: string, endpoint: EndpointEntry): Promise<void> {
  await updateJsonFile(paths.settings, SettingsSchema, (current) => {
    const next: JsonObject = { ...current };
    const providers = { ...(next.providers as JsonObject | undefined) };
    const existing = (providers[name] ?? {}) as JsonObject;
    const models = Array.isArray(existing.models) ? [...(existing.models as JsonObject[])] : [];
    if (!models.some((model) => model.id === endpoint.modelId)) models.push({ id: endpoint.modelId });
    providers[name] = { ...existing, api: existing.api ?? "openai-compatible", baseUrl: endpoint.baseUrl, models };
    next.providers = providers;
    return next;
  });
}
