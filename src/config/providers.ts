/**
 * The providers acp-edge knows, with where their credentials and base URLs
 * come from, merged with the custom providers of `settings.json`.
 * @module
 */
import { env } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { AWS_REGION, AZURE_RESOURCE, checkedName, CloudNameError, GCP_LOCATION, GCP_PROJECT } from "./cloud-names.ts";
import { AWS_HINT, AWS_SECRET_VARIABLES, awsChainPresent, googleCredentialSource, type GoogleCredentialSource } from "./cloud-credentials.ts";
import { ConfigError } from "./settings.ts";
import type { AuthFile, ProviderKind, ProviderSettings, Settings } from "./settings-schema.ts";

export interface ProviderConfig {
  name: string;
  api: ProviderKind | "faux";
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Environment variable for the key; undefined when the provider needs none. */
  apiKeyEnv?: string;
  /** Models declared for this provider in settings (built-in providers also have the catalog). */
  models: NonNullable<ProviderSettings["models"]>;
  builtIn: boolean;
  /** `vertex`: project and location; `bedrock`: region; `azure`: resource name, API version, Entra token instead of a key. */
  project?: string;
  location?: string;
  region?: string;
  resourceName?: string;
  apiVersion?: string;
  entra?: boolean;
  /** Why the provider cannot be used as configured (a malformed region in the environment): it is then not authenticated. */
  problem?: string;
}

/** Where a provider's credentials come from; `cloud` = the cloud's own chain (Google ADC, the AWS chain), used when the model is called. */
export type Credential =
  | { ok: true; apiKey?: string; source: "auth.json" | "environment" | "not needed" }
  | { ok: true; source: "cloud"; google?: GoogleCredentialSource }
  | { ok: false; hint: string };

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
  vertex: { api: "vertex" },
  bedrock: { api: "bedrock", baseUrlEnv: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME" },
  azure: { api: "azure", keyEnv: ["AZURE_API_KEY"], baseUrlEnv: "AZURE_OPENAI_BASE_URL" },
  faux: { api: "faux" },
};

/** Anthropic's own convention leaves `/v1` off its base URL; the client wants it on. */
function withVersionSegment(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** The first variable that is set, else the first named (what the hint tells the user to set). */
function firstSet(names: string[]): string {
  return names.find((name) => env(name)) ?? names[0]!;
}

/**
 * The built-in clouds' placement from the environment, each name checked before it can reach a URL.
 * A malformed value makes only that provider unusable (with the reason), not the whole program.
 */
function builtInPlacement(name: string): Partial<ProviderConfig> {
  const fromEnv = (names: string[], pattern: RegExp, what: string) => {
    const variable = names.find((n) => env(n));
    return variable ? checkedName(env(variable)!, pattern, what, variable) : undefined;
  };
  try {
    switch (name) {
      case "vertex": {
        const project = fromEnv(["GOOGLE_VERTEX_PROJECT", "GOOGLE_CLOUD_PROJECT"], GCP_PROJECT, "Google Cloud project");
        const location = fromEnv(["GOOGLE_VERTEX_LOCATION", "GOOGLE_CLOUD_LOCATION"], GCP_LOCATION, "Vertex location");
        return { ...(project ? { project } : {}), ...(location ? { location } : {}) };
      }
      case "bedrock": {
        const region = fromEnv(["AWS_REGION", "AWS_DEFAULT_REGION"], AWS_REGION, "AWS region");
        return region ? { region } : {};
      }
      case "azure": {
        const resourceName = fromEnv(["AZURE_RESOURCE_NAME"], AZURE_RESOURCE, "Azure resource name");
        return { ...(resourceName ? { resourceName } : {}), ...(!env("AZURE_API_KEY") && env("AZURE_AD_TOKEN") ? { entra: true, apiKeyEnv: "AZURE_AD_TOKEN" } : {}) };
      }
    }
  } catch (error) {
    if (error instanceof CloudNameError) return { problem: error.message };
    throw error;
  }
  return {};
}

/** Built-in providers plus the custom ones from settings (a custom entry may not replace a built-in one). */
export function configuredProviders(settings: Settings): ProviderConfig[] {
  const providers: ProviderConfig[] = [];
  for (const [name, builtIn] of Object.entries(BUILT_IN)) {
    const rawBase = builtIn.baseUrlEnv ? env(builtIn.baseUrlEnv) : undefined;
    providers.push({
      name,
      api: builtIn.api,
      ...(rawBase ? { baseUrl: name === "anthropic" ? withVersionSegment(rawBase) : rawBase.replace(/\/+$/, "") } : {}),
      ...(builtIn.keyEnv ? { apiKeyEnv: firstSet(builtIn.keyEnv) } : {}),
      models: [],
      builtIn: true,
      ...builtInPlacement(name),
    });
  }
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
      ...(custom.project ? { project: custom.project } : {}),
      ...(custom.location ? { location: custom.location } : {}),
      ...(custom.region ? { region: custom.region } : {}),
      ...(custom.resourceName ? { resourceName: custom.resourceName } : {}),
      ...(custom.apiVersion ? { apiVersion: custom.apiVersion } : {}),
      ...(custom.auth === "entra" ? { entra: true } : {}),
    });
  }
  // Registered as soon as the configuration is known, not when a model is first used: a command
  // printing the environment must not show a key of a provider this session never called.
  for (const provider of providers) {
    for (const value of Object.values(provider.headers ?? {})) registerSecret(value);
    if (provider.apiKeyEnv) registerSecret(env(provider.apiKeyEnv));
  }
  for (const name of [...AWS_SECRET_VARIABLES, "GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "AZURE_AD_TOKEN"]) registerSecret(env(name));
  return providers;
}

/**
 * The key for a provider: `auth.json` first, then its environment variable;
 * for the clouds, their own credential chains.
 * The hint names no path of this machine: it may travel to a remote client.
 */
export function resolveCredential(provider: ProviderConfig, auth: AuthFile): Credential {
  if (provider.problem) return { ok: false, hint: provider.problem };
  const stored = auth[provider.name];
  if (stored) {
    registerSecret(stored.key);
    return { ok: true, apiKey: stored.key, source: "auth.json" };
  }
  if (provider.api === "vertex") return vertexCredential(provider);
  if (provider.api === "bedrock") return bedrockCredential(provider);
  // Custom providers without `apiKeyEnv` are local servers, and faux is offline: no key needed.
  if (!provider.apiKeyEnv) return { ok: true, source: "not needed" };
  const key = env(provider.apiKeyEnv);
  if (key) {
    registerSecret(key);
    return { ok: true, apiKey: key, source: "environment" };
  }
  return { ok: false, hint: `run \`acp-edge login --provider ${provider.name}\`, or set ${provider.apiKeyEnv}` };
}

/** Vertex: Application Default Credentials, and a project to bill (the service-account file names one). */
function vertexCredential(provider: ProviderConfig): Credential {
  const source = googleCredentialSource();
  if ("hint" in source) return { ok: false, hint: source.hint };
  return { ok: true, source: "cloud", google: source };
}

/** Bedrock: an API key (`AWS_BEARER_TOKEN_BEDROCK` or `apiKeyEnv`), else the AWS chain, SigV4-signed. */
function bedrockCredential(provider: ProviderConfig): Credential {
  const keyEnv = provider.apiKeyEnv ?? "AWS_BEARER_TOKEN_BEDROCK";
  const key = env(keyEnv)?.trim();
  if (key) {
    registerSecret(key);
    return { ok: true, apiKey: key, source: "environment" };
  }
  if (awsChainPresent()) return { ok: true, source: "cloud" };
  return { ok: false, hint: AWS_HINT };
}
