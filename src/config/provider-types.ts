/**
 * The config layer's provider types: a configured provider and where its
 * credentials come from. Shared by the eager provider list and the clouds'
 * credential checks, which load with the first model choice.
 * @module
 */
import type { ProviderKind, ProviderSettings } from "./settings-schema.ts";

/** Where Google credentials come from: a file (service account, gcloud user login), or the metadata server of the machine. */
export type GoogleCredentialSource = { kind: "file"; path: string } | { kind: "metadata" };

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
  /** A service reached by its key alone (provider-presets.ts): listed by `acp-edge models` only once it has one. */
  preset?: boolean;
}

/** Where a provider's credentials come from; `cloud` = the cloud's own chain (Google ADC, the AWS chain), used when the model is called. */
export type Credential =
  /** `editor`: the editor routed the provider through a gateway whose headers are the credentials (ACP `providers/set`). */
  | { ok: true; apiKey?: string; source: "auth.json" | "environment" | "not needed" | "editor" }
  | { ok: true; source: "cloud"; google?: GoogleCredentialSource }
  | { ok: false; hint: string };
