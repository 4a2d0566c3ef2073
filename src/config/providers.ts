/**
 * The providers acp-edge knows, with where their credentials and base URLs
 * come from, merged with the custom providers of `settings.json`.
 * @module
 */
import { env } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { PROVIDER_PRESETS } from "./provider-presets.ts";
import type { Credential, ProviderConfig } from "./provider-types.ts";
import { ConfigError } from "./settings.ts";
import type { AuthFile, Settings } from "./settings-schema.ts";

export type { Credential, ProviderConfig } from "./provider-types.ts";

interface BuiltIn {
  api: ProviderConfig["api"];
  /** Key variables, in order of preference. */
  keyEnv?: string[];
  baseUrlEnv?: string;
}

const BUILT_IN: Record<string, BuiltIn> = {
  anthropic: { api: "anthropic", keyEnv: ["ANTHROPIC_API_KEY"], baseUrlEnv: "ANTHROPIC_BASE_URL" },
  openai: { api: "openai", keyEnv: ["OPENAI_API_KEY"], baseUrlEnv: "OPENAI_BASE_URL" },
  google: { api: "google", keyEnv: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"], baseUrlEnv: "GOOGLE_GEMINI_BASE_URL" },
  // The clouds' placement (project, region, resource) and their own credential chains: see cloud-credentials.ts.
  vertex: { api: "vertex" },
  bedrock: { api: "bedrock", baseUrlEnv: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME" },
  azure: { api: "azure", keyEnv: ["AZURE_API_KEY"], baseUrlEnv: "AZURE_OPENAI_BASE_URL" },
  faux: { api: "faux" },
};

/** The clouds' secrets in the environment, whichever provider reads them: registered for redaction with the configuration. */
export const CLOUD_SECRET_VARIABLES = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "AZURE_AD_TOKEN"];

/**
 * The clouds' credential checks and placement, loaded with the first model
 * choice rather than at start-up (`ModelRegistry.refresh` loads them).
 */
let clouds: typeof import("./cloud-credentials.ts") | undefined;
export async function loadCloudChecks(): Promise<typeof import("./cloud-credentials.ts")> {
  clouds ??= await import("./cloud-credentials.ts");
  return clouds;
}

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

/** The first variable that is set, else the first named (what the hint tells the user to set). */
function firstSet(names: string[]): string {
  return names.find((name) => env(name)) ?? names[0]!;
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
      ...(builtIn.keyEnv ? { apiKeyEnv: firstSet(builtIn.keyEnv) } : {}),
      models: [],
      builtIn: true,
    });
  }
  providers.push(...presetProviders(settings));
  for (const [name, custom] of Object.entries(settings.providers ?? {})) {
    if (name in BUILT_IN) throw new ConfigError(`settings.json: provider "${name}" is built in; choose another name for a custom provider`);
    const { project, location, region, resourceName, apiVersion } = custom;
    providers.push({
      ...Object.fromEntries(Object.entries({ project, location, region, resourceName, apiVersion }).filter(([, value]) => value !== undefined)),
      name,
      api: custom.api,
      ...(custom.baseUrl ? { baseUrl: custom.baseUrl.replace(/\/+$/, "") } : {}),
      ...(custom.headers ? { headers: custom.headers } : {}),
      ...(custom.apiKeyEnv ? { apiKeyEnv: custom.apiKeyEnv } : {}),
      models: custom.models ?? [],
      builtIn: false,
      ...(custom.auth === "entra" ? { entra: true } : {}),
    });
  }
  // Registered as soon as the configuration is known, not when a model is first used: a command
  // printing the environment must not show a key of a provider this session never called.
  for (const provider of providers) {
    for (const value of Object.values(provider.headers ?? {})) registerSecret(value);
    if (provider.apiKeyEnv) registerSecret(env(provider.apiKeyEnv));
  }
  for (const name of CLOUD_SECRET_VARIABLES) registerSecret(env(name));
  return providers;
}

/**
 * The key for a provider: `auth.json` first, then its environment variable;
 * for the clouds, their own credential chains.
 * The hint names no path of this machine: it may travel to a remote client.
 */
export function resolveCredential(provider: ProviderConfig, auth: AuthFile): Credential {
  const stored = auth[provider.name];
  const cloud = provider.api === "vertex" || provider.api === "bedrock" || provider.api === "azure";
  // Fails closed: a cloud provider is not usable before its checks have loaded.
  if (cloud && !clouds) return { ok: false, hint: "its credentials have not been checked yet" };
  const problem = cloud ? clouds!.placementProblem(provider) : undefined;
  if (problem) return { ok: false, hint: problem };
  if (stored) registerSecret(stored.key);
  // Vertex takes Google's credentials only: a key stored for it (login refuses one) could never be sent.
  if (stored && provider.api !== "vertex") {
    return { ok: true, apiKey: stored.key, source: "auth.json" };
  }
  if (cloud) {
    const checked = clouds!.cloudCredential(provider);
    if (checked) return checked;
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
