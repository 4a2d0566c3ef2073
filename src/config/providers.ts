/**
 * The providers acp-edge knows, with where their credentials and base URLs
 * come from, merged with the custom providers of `settings.json`.
 * @module
 */
import { env } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { PROVIDER_PRESETS } from "./provider-presets.ts";
import { ConfigError } from "./settings.ts";
import type { AuthFile, ProviderSettings, Settings } from "./settings-schema.ts";

export interface ProviderConfig {
  name: string;
  api: "anthropic" | "openai" | "openai-compatible" | "faux";
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Environment variable for the key; undefined when the provider needs none. */
  apiKeyEnv?: string;
  /** Models declared for this provider in settings (built-in providers also have the catalog). */
  models: NonNullable<ProviderSettings["models"]>;
  builtIn: boolean;
  /** A service reached by its key alone (provider-presets.ts): listed by `acp-edge models` only once it has one. */
  preset?: boolean;
}

export type Credential =
  /** `editor`: the editor routed the provider through a gateway whose headers are the credentials (ACP `providers/set`). */
  | { ok: true; apiKey?: string; source: "auth.json" | "environment" | "not needed" | "editor" }
  | { ok: false; hint: string };

const BUILT_IN: Record<string, { api: ProviderConfig["api"]; keyEnv?: string; baseUrlEnv?: string }> = {
  anthropic: { api: "anthropic", keyEnv: "ANTHROPIC_API_KEY", baseUrlEnv: "ANTHROPIC_BASE_URL" },
  openai: { api: "openai", keyEnv: "OPENAI_API_KEY", baseUrlEnv: "OPENAI_BASE_URL" },
  faux: { api: "faux" },
};

/** Anthropic's own convention leaves `/v1` off its base URL; the client wants it on. */
export function anthropicBaseUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** A local Ollama server: OpenAI-compatible on its default port, no key. */
const LOCAL_OLLAMA: ProviderConfig = { name: "ollama", api: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1", models: [], builtIn: true, preset: true };

/**
 * The OpenAI-compatible services a key alone reaches (OpenRouter, Groq, …) and a local Ollama; a provider
 * of settings.json with the same name replaces one.
 */
function presetProviders(settings: Settings): ProviderConfig[] {
  const presets: ProviderConfig[] = PROVIDER_PRESETS.map((preset) => {
    // `GROQ_BASE_URL` beside `GROQ_API_KEY`, as `OPENAI_BASE_URL` beside `OPENAI_API_KEY`: a proxy or a private endpoint.
    const override = env(preset.keyEnv.replace(/_API_KEY$/, "_BASE_URL"));
    return {
      name: preset.name,
      api: "openai-compatible",
      baseUrl: (override || preset.baseUrl).replace(/\/+$/, ""),
      apiKeyEnv: preset.keyEnv,
      models: [],
      builtIn: true,
      preset: true,
    };
  });
  return [...presets, LOCAL_OLLAMA].filter((preset) => !(preset.name in (settings.providers ?? {})));
}

/**
 * Built-in providers, the presets, then the custom ones from settings (a custom entry may replace a preset,
 * not a built-in provider).
 */
export function configuredProviders(settings: Settings): ProviderConfig[] {
  const providers: ProviderConfig[] = [];
  for (const [name, builtIn] of Object.entries(BUILT_IN)) {
    const rawBase = builtIn.baseUrlEnv ? env(builtIn.baseUrlEnv) : undefined;
    providers.push({
      name,
      api: builtIn.api,
      ...(rawBase ? { baseUrl: name === "anthropic" ? anthropicBaseUrl(rawBase) : rawBase.replace(/\/+$/, "") } : {}),
      ...(builtIn.keyEnv ? { apiKeyEnv: builtIn.keyEnv } : {}),
      models: [],
      builtIn: true,
    });
  }
  providers.push(...presetProviders(settings));
  for (const [name, custom] of Object.entries(settings.providers ?? {})) {
    if (name in BUILT_IN) throw new ConfigError(`settings.json: provider "${name}" is built in; choose another name for a custom provider`);
    providers.push({
      name,
      api: custom.api,
      ...(custom.baseUrl ? { baseUrl: custom.baseUrl.replace(/\/+$/, "") } : {}),
      ...(custom.headers ? { headers: custom.headers } : {}),
      ...(custom.apiKeyEnv ? { apiKeyEnv: custom.apiKeyEnv } : {}),
      models: custom.models ?? [],
      builtIn: false,
    });
  }
  // Registered as soon as the configuration is known, not when a model is first used: a command
  // printing the environment must not show a key of a provider this session never called.
  for (const provider of providers) {
    for (const value of Object.values(provider.headers ?? {})) registerSecret(value);
    if (provider.apiKeyEnv) registerSecret(env(provider.apiKeyEnv));
  }
  return providers;
}

/**
 * The key for a provider: `auth.json` first, then its environment variable.
 * The hint names no path of this machine: it may travel to a remote client.
 */
export function resolveCredential(provider: ProviderConfig, auth: AuthFile): Credential {
  const stored = auth[provider.name];
  if (stored) {
    registerSecret(stored.key);
    return { ok: true, apiKey: stored.key, source: "auth.json" };
  }
  // Custom providers without `apiKeyEnv` are local servers, and faux is offline: no key needed.
  if (!provider.apiKeyEnv) return { ok: true, source: "not needed" };
  const key = env(provider.apiKeyEnv);
  if (key) {
    registerSecret(key);
    return { ok: true, apiKey: key, source: "environment" };
  }
  return { ok: false, hint: `run \`acp-edge login --provider ${provider.name}\`, or set ${provider.apiKeyEnv}` };
}
