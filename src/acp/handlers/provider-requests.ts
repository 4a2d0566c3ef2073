/**
 * The unstable `providers/list`, `providers/set` and `providers/disable`: an
 * editor routes a provider through its own endpoint (a gateway) before it
 * opens sessions, or switches one off. Routes apply to sessions created after
 * the change, for every connection of this process. A provider is `required`
 * when the configured default model (`--model`, `defaultModel`) is one of its
 * models: switching it off would leave new sessions without their model.
 * Header values are never answered, nor quoted in a refusal.
 * @module
 */
import type { ProviderConfig } from "../../config/providers.ts";
import { supportedApiTypes } from "../../models/editor-routes.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { invalidParams } from "../errors.ts";
import { parseDisableProvider, parseNoParams, parseSetProvider } from "../params/provider-params.ts";
import type { ListProvidersResponse } from "../sdk.ts";

/** Providers an editor can route: every configured one but the offline faux. */
function routable(services: AgentServices): ProviderConfig[] {
  return services.registry.allProviders().filter((p) => supportedApiTypes(p).length > 0);
}

/** The provider of the configured default model, which may not be switched off. */
function requiredProvider(services: AgentServices): string | undefined {
  const model = services.options.model ?? services.config.settings.defaultModel;
  const slash = model?.indexOf("/") ?? -1;
  return slash > 0 ? model!.slice(0, slash) : undefined;
}

/** The named provider, or -32602 naming the known ones (the id shown cut short and quoted as JSON). */
function knownProvider(services: AgentServices, providerId: string): ProviderConfig {
  const providers = routable(services);
  const provider = providers.find((p) => p.name === providerId);
  if (!provider) {
    throw invalidParams(`unknown provider ${JSON.stringify(providerId.slice(0, 64))}; providers: ${providers.map((p) => p.name).join(", ")}`, {
      providerId: providerId.slice(0, 64),
    });
  }
  return provider;
}

/** `providers/list`. */
export async function listProviders(services: AgentServices, raw: unknown): Promise<ListProvidersResponse> {
  parseNoParams(raw);
  const routes = await services.registry.editorRoutes();
  const required = requiredProvider(services);
  return {
    providers: routable(services).map((provider) => ({
      providerId: provider.name,
      supported: [...supportedApiTypes(provider)],
      required: provider.name === required,
      current: routes.current(provider) ?? null,
    })),
  };
}

/** `providers/set`. */
export async function setProvider(services: AgentServices, raw: unknown): Promise<Record<string, never>> {
  const params = parseSetProvider(raw);
  const provider = knownProvider(services, params.providerId);
  const supported = supportedApiTypes(provider);
  if (!supported.includes(params.apiType)) {
    throw invalidParams(`provider ${provider.name} cannot be reached with apiType ${JSON.stringify(params.apiType.slice(0, 64))}; it supports ${supported.join(", ")}`, {
      providerId: provider.name,
      supported: [...supported],
    });
  }
  (await services.registry.editorRoutes()).set(provider.name, { apiType: params.apiType, baseUrl: params.baseUrl, headers: params.headers });
  return {};
}

/** `providers/disable`. */
export async function disableProvider(services: AgentServices, raw: unknown): Promise<Record<string, never>> {
  const params = parseDisableProvider(raw);
  const provider = knownProvider(services, params.providerId);
  if (provider.name === requiredProvider(services)) {
    throw invalidParams(`provider ${provider.name} is required: the configured default model is one of its models`, { providerId: provider.name });
  }
  (await services.registry.editorRoutes()).disable(provider.name);
  return {};
}
