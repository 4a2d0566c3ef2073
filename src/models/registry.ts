/**
 * Which models exist, which of them have credentials, and how to build a
 * client for one. Built from the providers in settings plus the catalog.
 * @module
 */
import { loadCloudChecks, resolveCredential, type Credential, type ProviderConfig } from "../config/providers.ts";
import type { AuthFile, Settings } from "../config/settings-schema.ts";
import type { Placement } from "../config/cloud-credentials.ts";
import { env } from "../runtime/process/process.ts";
import { catalogInfo, catalogModelIds, catalogProviders, isKnownModel, loadCatalog, PREFERRED_DEFAULTS } from "./catalog.ts";
import type { EditorRoutes } from "./editor-routes.ts";
import { isClaudeModel, longCachePrice } from "./prompt-cache.ts";
import type { FauxScript, FauxStep } from "./faux-script.ts";
import type { ModelClient, ModelInfo } from "./types.ts";

export interface ModelChoice {
  /** `provider/id`. */
  spec: string;
  info: ModelInfo;
  provider: ProviderConfig;
  credential: Credential;
}

/** Why no model can be used; `auth` problems are fixed by configuring credentials. */
export type ModelProblem = { kind: "auth" | "unknown"; message: string };

/** Where providers and keys come from: fixed, or files that `refresh` reads again when they changed. */
export interface CredentialSource {
  readonly providers: ProviderConfig[];
  readonly auth: AuthFile;
  refresh?(): Promise<void>;
}

export interface RegistryOptions {
  credentials: CredentialSource;
  settings: Settings;
  /** Steps for faux models; defaults to `ACP_EDGE_FAUX_SCRIPT` when set. */
  fauxSteps?: FauxStep[];
}

export class ModelRegistry {
  readonly #options: RegistryOptions;
  /** Routes the editor set over ACP (process-wide, for sessions created after each change); made by the first `editorRoutes`. */
  #routes?: EditorRoutes;
  #fauxScript?: Promise<FauxScript | undefined>;

  constructor(options: RegistryOptions) {
    this.#options = options;
  }

  /**
   * Takes in credentials and providers changed since they were last read (a
   * login in another process); call before choosing a model for a new session.
   * Throws `ConfigError` when a changed file cannot be used.
   */
  async refresh(): Promise<void> {
    await Promise.all([this.#options.credentials.refresh?.(), loadCloudChecks()]);
    // The catalogue of each provider that can be used now, and of its kind (a custom cloud provider serves that cloud's models).
    const usable = this.providers().filter((p) => this.credential(p).ok);
    await loadCatalog(usable.flatMap((p) => [p.name, p.api]));
  }

  /** Loads the catalogue of every provider, for listing all of it. */
  async loadWholeCatalog(): Promise<void> {
    await loadCatalog(await catalogProviders());
  }

  /** The editor's routes, loaded the first time a client asks for them (most never do). */
  async editorRoutes(): Promise<EditorRoutes> {
    if (!this.#routes) {
      const { EditorRoutes } = await import("./editor-routes.ts");
      this.#routes ??= new EditorRoutes();
    }
    return this.#routes;
  }

  /** The providers sessions may use: every configured one the editor did not disable. */
  providers(): ProviderConfig[] {
    return this.#options.credentials.providers.filter((p) => !this.#routes?.isDisabled(p.name));
  }

  /** Every configured provider, disabled ones included. */
  allProviders(): readonly ProviderConfig[] {
    return this.#options.credentials.providers;
  }

  /** A provider's credential as a session created now would use it (an editor route's headers count). */
  credential(provider: ProviderConfig): Credential {
    return this.#routed(provider).credential;
  }

  /** Every model a user can pick: catalog models (of the providers `refresh` loaded), then those declared in settings. */
  list(): ModelChoice[] {
    const out: ModelChoice[] = [];
    for (const provider of this.providers()) {
      const ids = new Set([...catalogModelIds(provider.name), ...provider.models.map((m) => m.id)]);
      for (const id of ids) out.push(this.#choice(provider, id));
    }
    return out;
  }

  /** Models with credentials. Faux models are offline test doubles and are listed only when asked for. */
  authenticated(includeFaux = false): ModelChoice[] {
    return this.list().filter((c) => c.credential.ok && (includeFaux || c.provider.api !== "faux"));
  }

  /** Looks up `provider/id`; ids unknown to the catalog are allowed for known providers. */
  find(spec: string): ModelChoice | ModelProblem {
    const slash = spec.indexOf("/");
    if (slash <= 0 || slash === spec.length - 1) return { kind: "unknown", message: `model "${spec}" must be written provider/model` };
    const providerName = spec.slice(0, slash);
    const providers = this.#options.credentials.providers;
    const provider = providers.find((p) => p.name === providerName);
    if (provider && this.#routes?.isDisabled(provider.name)) return { kind: "unknown", message: `provider "${providerName}" was disabled by the editor` };
    if (!provider) {
      const known = providers.map((p) => p.name).join(", ");
      return { kind: "unknown", message: `unknown provider "${providerName}" in model "${spec}" (known providers: ${known})` };
    }
    return this.#choice(provider, spec.slice(slash + 1));
  }

  /**
   * The model a new session starts with: the preferred one (flag or
   * settings) when usable, else the first authenticated model.
   */
  pickDefault(preferred?: string): ModelChoice | ModelProblem {
    if (preferred) {
      const found = this.find(preferred);
      if ("kind" in found) return found;
      if (!found.credential.ok) return { kind: "auth", message: `No credentials for ${found.spec}: ${found.credential.hint}.` };
      return found;
    }
    const usable = this.authenticated();
    const preferredOrder = usable.find((c) => PREFERRED_DEFAULTS[c.provider.name] === c.info.id);
    const choice = preferredOrder ?? usable[0];
    if (choice) return choice;
    return {
      kind: "auth",
      message:
        "No authenticated model. Log in with `acp-edge login` (editors offer it as a terminal login), set ANTHROPIC_API_KEY " +
        "or OPENAI_API_KEY, or store a key in auth.json of the agent's home folder; no restart is needed.",
    };
  }

  /** A ready client for a model with credentials. */
  async createClient(choice: ModelChoice): Promise<ModelClient> {
    if (!choice.credential.ok) throw new Error(`No credentials for ${choice.spec}: ${choice.credential.hint}`);
    const { provider: configured } = choice;
    if (configured.api === "faux") {
      // The offline model loads with its first session: start-up does not carry it.
      const { createFauxModel } = await import("./faux.ts");
      return createFauxModel(choice.info, await this.#faux());
    }
    // A built-in cloud provider's project, region or resource come from the environment.
    const { builtInPlacement } = await loadCloudChecks();
    const found: Placement = configured.builtIn ? builtInPlacement(configured.name) : {};
    const { problem: _problem, apiKeyEnv: _keyEnv, entra: entraFromEnv, ...placement } = found;
    // The environment's Entra token stands in only when it is the credential: a key from auth.json is sent as a key.
    const entra = entraFromEnv === true && choice.credential.source !== "auth.json";
    const provider: ProviderConfig = { ...configured, ...placement, ...(entra ? { entra } : {}) };
    // The model layer over the AI SDK loads with the first client, not with the program: `initialize` never needs it.
    const { createAiSdkModel } = await import("./ai-sdk.ts");
    return createAiSdkModel(choice.info, {
      provider: provider.name,
      api: configured.api,
      ...(provider.baseUrl ? { baseUrl: provider.baseUrl } : {}),
      ...("apiKey" in choice.credential && choice.credential.apiKey ? { apiKey: choice.credential.apiKey } : {}),
      ...("google" in choice.credential && choice.credential.google ? { google: choice.credential.google } : {}),
      ...(provider.headers ? { headers: provider.headers } : {}),
      ...pick(provider, ["project", "location", "region", "resourceName", "apiVersion", "entra"]),
      maxRetries: this.#options.settings.maxRetries ?? 2,
      ...(this.#options.settings.promptCache ? { promptCache: this.#options.settings.promptCache } : {}),
    });
  }

  #choice(configured: ProviderConfig, id: string): ModelChoice {
    const { provider, credential } = this.#routed(configured);
    const declared = provider.models.find((m) => m.id === id);
    const override = this.#options.settings.models?.[`${provider.name}/${id}`];
    // A custom provider of a cloud kind serves that cloud's models: the built-in provider's catalog entries apply.
    const base = isKnownModel(provider.name, id) || provider.api === "faux" ? catalogInfo(provider.name, id) : catalogInfo(provider.api, id);
    const info: ModelInfo = { ...base, ...stripUndefined(declared ?? {}), ...stripUndefined(override ?? {}), provider: provider.name, id };
    if (declared?.name === undefined && override?.name === undefined) info.name = base.name;
    // A cache-write price someone configured is the price; the 1-hour cache's 2x applies only to the catalog's.
    const configuredWrite = declared?.price?.cacheWrite !== undefined || override?.price?.cacheWrite !== undefined;
    if (provider.api !== "faux" && isClaudeModel(provider.api, id) && this.#options.settings.promptCache === "long" && info.price && !configuredWrite) info.price = longCachePrice(info.price);
    return {
      spec: `${provider.name}/${id}`,
      info,
      provider,
      credential,
    };
  }

  /** The provider and credential a session created now uses: as configured, or as the editor routed it. */
  #routed(provider: ProviderConfig): { provider: ProviderConfig; credential: Credential } {
    const credential = resolveCredential(provider, this.#options.credentials.auth);
    return this.#routes ? this.#routes.apply(provider, credential) : { provider, credential };
  }

  #faux(): Promise<FauxScript | undefined> {
    this.#fauxScript ??= (async () => {
      const { FauxScript, loadFauxScript } = await import("./faux-script.ts");
      if (this.#options.fauxSteps) return new FauxScript(this.#options.fauxSteps);
      const path = env("ACP_EDGE_FAUX_SCRIPT");
      return path ? new FauxScript(await loadFauxScript(path)) : undefined;
    })();
    return this.#fauxScript;
  }
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]])) as Partial<Pick<T, K>>;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
