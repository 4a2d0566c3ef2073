/**
 * What a login is for: a built-in provider, a provider of `settings.json`, or
 * a new OpenAI-compatible endpoint; where its check request goes and what is
 * written afterwards. Every value a person or a script gives is checked here,
 * with a reason that never repeats a key.
 * @module
 */
import type { ProviderConfig } from "../config/providers.ts";
import { CHECK_MODELS } from "../models/credential-check.ts";
import type { ProviderApi } from "../models/types.ts";
import { UsageError } from "./options.ts";

/** One login's provider, endpoint and check model. */
export interface LoginTarget {
  /** The name the key is stored under. */
  provider: string;
  api: ProviderApi;
  baseUrl?: string;
  headers?: Record<string, string>;
  /** The model of the check request. */
  modelId: string;
  /** Set when `settings.json` must get (or update) this provider: an endpoint entered at login. */
  endpoint?: { baseUrl: string; modelId: string };
  /** Endpoints of one's own may need no key (local servers); the vendors' always do. */
  keyOptional: boolean;
  /** The environment variable that also gives this provider a key. */
  keyEnv?: string;
  /** Where a cloud provider of `settings.json` runs (a built-in one's comes from the environment). */
  placement?: Pick<ProviderConfig, "project" | "location" | "region" | "resourceName" | "apiVersion" | "entra">;
}

/** The built-in providers a person can log in to, in menu order. */
export const VENDORS = [
  { name: "anthropic", label: "Anthropic" },
  { name: "openai", label: "OpenAI" },
  { name: "google", label: "Google Gemini API" },
  { name: "bedrock", label: "Amazon Bedrock (a Bedrock API key; profiles and SSO need no login)" },
  { name: "azure", label: "Azure OpenAI (set AZURE_RESOURCE_NAME or AZURE_OPENAI_BASE_URL too)" },
  { name: "vertex", label: "Google Vertex AI (Application Default Credentials)" },
] as const;

/** Vertex takes no key: Google's own credentials are used where they are. */
const VERTEX_LOGIN =
  "vertex uses Google's Application Default Credentials, so there is no key to store: run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file (and GOOGLE_CLOUD_PROJECT)";

const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const MAX_KEY_LENGTH = 4096;

/** A provider name for `settings.json` and `auth.json`. */
export function checkProviderName(name: string): string {
  if (!PROVIDER_NAME.test(name)) throw new UsageError(`provider names use letters, digits, - and _ (at most 64), got "${printable(name)}"`);
  return name;
}

/** An http(s) base URL, without a trailing slash; no credentials or query in it (keys belong in auth.json). */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`the base URL must be an http:// or https:// URL, got "${printable(text)}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`the base URL must be an http:// or https:// URL, got "${printable(text)}"`);
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError("the base URL must not carry a user, password, query or fragment (the key is asked for separately)");
  }
  return url.href.replace(/\/+$/, "");
}

/** A model id as the endpoint names it: printable, no spaces. */
export function checkModelId(text: string): string {
  const id = text.trim();
  if (!/^[\x21-\x7e]{1,200}$/.test(id)) throw new UsageError(`the model id must be 1-200 printable characters without spaces, got "${printable(text)}"`);
  return id;
}

/**
 * A key as pasted or piped: surrounding whitespace (a trailing newline)
 * dropped, then only printable ASCII, as every provider's keys are and as an
 * HTTP header can carry. The reason names the position, never the text.
 */
export function checkKeyText(text: string): string {
  const key = text.trim();
  if (key.length > MAX_KEY_LENGTH) throw new UsageError(`the key is longer than ${MAX_KEY_LENGTH} characters; nothing was saved`);
  const bad = [...key].findIndex((character) => !/^[\x21-\x7e]$/.test(character));
  if (bad >= 0) throw new UsageError(`the key has a character no API key has (a space, control or non-ASCII character at position ${bad + 1}); nothing was saved`);
  return key;
}

/** The model id of `--model` for `provider`: `provider/id` and a bare id both work for login. */
export function loginModelId(model: string | undefined, provider: string, providers: readonly ProviderConfig[]): string | undefined {
  if (model === undefined) return undefined;
  const slash = model.indexOf("/");
  const prefix = slash > 0 ? model.slice(0, slash) : undefined;
  if (prefix === provider) return checkModelId(model.slice(slash + 1));
  if (prefix !== undefined && providers.some((p) => p.name === prefix)) {
    throw new UsageError(`--model ${model} names provider "${prefix}", not "${provider}"`);
  }
  return checkModelId(model);
}

/** The target for a provider that exists (built in or in settings), checked with `modelId` when given. */
export function knownTarget(provider: ProviderConfig, modelId: string | undefined, baseUrl: string | undefined): LoginTarget {
  const api = provider.api;
  if (api === "faux") throw new UsageError(`${provider.name} is offline and needs no key`);
  if (api === "vertex") throw new UsageError(VERTEX_LOGIN);
  if (provider.builtIn && baseUrl !== undefined) {
    throw new UsageError(`--base-url is for endpoints of one's own; ${provider.apiKeyEnv?.replace(/_API_KEY$/, "_BASE_URL")} sets the base URL of ${provider.name}`);
  }
  const model = modelId ?? CHECK_MODELS[provider.name] ?? provider.models[0]?.id;
  if (model === undefined && api === "azure") throw new UsageError(`name the Azure deployment to check the key with: --model DEPLOYMENT`);
  if (model === undefined) throw new UsageError(`provider "${provider.name}" lists no model in settings.json; name one with --model`);
  const { project, location, region, resourceName, apiVersion, entra } = provider;
  const placement = Object.fromEntries(Object.entries({ project, location, region, resourceName, apiVersion, entra }).filter(([, value]) => value !== undefined));
  const changed = !provider.builtIn && ((baseUrl !== undefined && baseUrl !== provider.baseUrl) || !provider.models.some((m) => m.id === model));
  const url = baseUrl ?? provider.baseUrl;
  return {
    provider: provider.name,
    api,
    ...(url ? { baseUrl: url } : {}),
    ...(provider.headers ? { headers: provider.headers } : {}),
    modelId: model,
    ...(changed && url ? { endpoint: { baseUrl: url, modelId: model } } : {}),
    keyOptional: !provider.builtIn && !provider.apiKeyEnv && api !== "bedrock" && api !== "azure" && api !== "google",
    ...(provider.apiKeyEnv ? { keyEnv: provider.apiKeyEnv } : {}),
    ...(Object.keys(placement).length > 0 ? { placement } : {}),
  };
}

/** The target for a new OpenAI-compatible endpoint named `name`. */
export function newEndpointTarget(name: string, baseUrl: string, modelId: string): LoginTarget {
  return { provider: name, api: "openai-compatible", baseUrl, modelId, endpoint: { baseUrl, modelId }, keyOptional: true };
}

/** The target that `--provider`, `--base-url` and `--model` describe. */
export function targetFromOptions(
  options: { provider: string; baseUrl?: string; model?: string },
  providers: readonly ProviderConfig[],
): LoginTarget {
  const name = checkProviderName(options.provider);
  const baseUrl = options.baseUrl === undefined ? undefined : checkBaseUrl(options.baseUrl);
  const modelId = loginModelId(options.model, name, providers);
  const known = providers.find((p) => p.name === name);
  if (known) return knownTarget(known, modelId, baseUrl);
  if (baseUrl === undefined || modelId === undefined) {
    throw new UsageError(`"${name}" is not a provider yet: give its --base-url and --model (an OpenAI-compatible endpoint), or use anthropic or openai`);
  }
  return newEndpointTarget(name, baseUrl, modelId);
}

/** A name for an endpoint, from its URL: `local` for this machine, else the site's name (`api.groq.com` → `groq`). */
export function suggestedName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1" || /^127\./.test(host) || host === "0.0.0.0") return "local";
  const labels = host.split(".").filter((label) => label !== "" && !/^\d+$/.test(label));
  const site = labels.length >= 2 ? labels[labels.length - 2]! : (labels[0] ?? "endpoint");
  const cleaned = site.toLowerCase().replace(/[^a-z0-9_-]/g, "-").replace(/^[^a-z0-9]+/, "");
  return cleaned === "" || cleaned === "anthropic" || cleaned === "openai" || cleaned === "faux" ? "endpoint" : cleaned.slice(0, 64);
}

/** Text from a person or a script, safe to echo in a message: control characters shown as `?`, long text cut. */
function printable(text: string): string {
  const shown = text.replace(/[\x00-\x1f\x7f-\x9f]/g, "?");
  return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
}
