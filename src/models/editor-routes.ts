/**
 * Provider routes the editor set over ACP (`providers/set`, `providers/disable`):
 * a provider sent through a gateway the editor names, with the headers it
 * gives, or switched off. They apply to sessions created after the change.
 * The headers are the credentials of a route (a gateway key): a key the agent
 * holds for the provider (auth.json, its environment variable) is never sent
 * to an endpoint the editor chose. Header values are registered as secrets
 * the moment they arrive, and nothing here ever hands them back.
 * @module
 */
import { anthropicBaseUrl, type Credential, type ProviderConfig } from "../config/providers.ts";
import { registerSecret } from "../runtime/secrets.ts";

/**
 * The wire protocols a provider of each kind can be routed through (ACP's `LlmProtocol` names). The clouds
 * that sign requests with their own credential chains (Vertex, Bedrock) or need a deployment's key (Azure)
 * are not routed by the editor: a gateway in their place would receive requests meant for the cloud.
 */
const API_TYPES: Record<ProviderConfig["api"], readonly string[]> = {
  anthropic: ["anthropic"],
  openai: ["openai"],
  "openai-compatible": ["openai"],
  google: ["google"],
  vertex: [],
  bedrock: [],
  azure: [],
  faux: [],
};

/** Where a provider's requests go when neither settings nor the editor name an endpoint. */
const DEFAULT_BASE_URLS: Partial<Record<ProviderConfig["api"], string>> = {
  anthropic: "https://api.anthropic.com/v1",
  openai: "https://api.openai.com/v1",
  google: "https://generativelanguage.googleapis.com/v1beta",
};

export interface ProviderRoute {
  apiType: string;
  baseUrl: string;
  headers: Record<string, string>;
}

/** The ACP api types a provider accepts (none for the offline faux provider). */
export function supportedApiTypes(provider: ProviderConfig): readonly string[] {
  return API_TYPES[provider.api];
}

/** The endpoint a provider's requests go to without a route. */
export function defaultBaseUrl(provider: ProviderConfig): string | undefined {
  return provider.baseUrl ?? DEFAULT_BASE_URLS[provider.api];
}

export class EditorRoutes {
  readonly #routes = new Map<string, ProviderRoute>();
  readonly #disabled = new Set<string>();

  /** Routes `provider` through `route` (replacing an earlier route, and enabling it again). */
  set(provider: string, route: ProviderRoute): void {
    for (const value of Object.values(route.headers)) registerSecret(value);
    this.#routes.set(provider, { ...route, headers: { ...route.headers } });
    this.#disabled.delete(provider);
  }

  /** Switches `provider` off until it is set again. */
  disable(provider: string): void {
    this.#routes.delete(provider);
    this.#disabled.add(provider);
  }

  isDisabled(provider: string): boolean {
    return this.#disabled.has(provider);
  }

  /** The route of `provider`, without its headers (what may be shown). */
  current(provider: ProviderConfig): { apiType: string; baseUrl: string } | undefined {
    if (this.#disabled.has(provider.name)) return undefined;
    const route = this.#routes.get(provider.name);
    if (route) return { apiType: route.apiType, baseUrl: route.baseUrl };
    const apiType = supportedApiTypes(provider)[0];
    const baseUrl = defaultBaseUrl(provider);
    return apiType && baseUrl ? { apiType, baseUrl } : undefined;
  }

  /** The provider as a session created now uses it, with its credential; unchanged without a route. */
  apply(provider: ProviderConfig, credential: Credential): { provider: ProviderConfig; credential: Credential } {
    const route = this.#routes.get(provider.name);
    if (!route) return { provider, credential };
    const baseUrl = provider.api === "anthropic" ? anthropicBaseUrl(route.baseUrl) : route.baseUrl.replace(/\/+$/, "");
    return { provider: { ...provider, baseUrl, headers: { ...route.headers } }, credential: { ok: true, source: "editor" } };
  }
}
