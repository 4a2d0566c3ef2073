/**
 * Whether a cloud's own credentials are there, without reading or using
 * them: Google's Application Default Credentials and the standard AWS chain.
 * The clouds' libraries find and use them when a model is first called; this
 * only decides whether a provider counts as authenticated, and what to tell
 * the user when it does not. Hints name variables and commands, never a path
 * or a value.
 * @module
 */
import { join } from "../runtime/files/path.ts";
import { fileVersionSync } from "../runtime/files/fs.ts";
import { env, platform, userHomeDirectory } from "../runtime/process/process.ts";
import { registerSecret } from "../runtime/secrets.ts";
import { AWS_REGION, AZURE_RESOURCE, checkedName, CloudNameError, GCP_LOCATION, GCP_PROJECT } from "./cloud-names.ts";
import type { Credential, GoogleCredentialSource, ProviderConfig } from "./provider-types.ts";


/** gcloud's own file for `gcloud auth application-default login`. */
function gcloudCredentialsFile(): string | undefined {
  const config = env("CLOUDSDK_CONFIG");
  if (config) return join(config, "application_default_credentials.json");
  if (platform() === "win32") {
    const appData = env("APPDATA");
    return appData ? join(appData, "gcloud", "application_default_credentials.json") : undefined;
  }
  const home = userHomeDirectory();
  return home ? join(home, ".config", "gcloud", "application_default_credentials.json") : undefined;
}

/** Google Cloud's serverless and compute platforms say so in their environment; the metadata server answers there. */
const ON_GOOGLE_CLOUD = ["GCE_METADATA_HOST", "K_SERVICE", "CLOUD_RUN_JOB", "FUNCTION_TARGET", "GAE_SERVICE"];

export const GOOGLE_HINT =
  "set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, run `gcloud auth application-default login`, or run on Google Cloud";

/** Application Default Credentials in Google's order, or a hint when there are none. */
export function googleCredentialSource(): GoogleCredentialSource | { hint: string } {
  const named = env("GOOGLE_APPLICATION_CREDENTIALS");
  if (named) {
    // A named file that is missing is a mistake to report, not a reason to fall back to another identity.
    return fileVersionSync(named)?.isFile ? { kind: "file", path: named } : { hint: "the file GOOGLE_APPLICATION_CREDENTIALS names does not exist; " + GOOGLE_HINT };
  }
  const gcloud = gcloudCredentialsFile();
  if (gcloud && fileVersionSync(gcloud)?.isFile) return { kind: "file", path: gcloud };
  if (ON_GOOGLE_CLOUD.some((name) => env(name))) return { kind: "metadata" };
  return { hint: GOOGLE_HINT };
}

export const AWS_HINT =
  "set AWS_BEARER_TOKEN_BEDROCK (a Bedrock API key), AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or run `aws configure` or `aws sso login`";

/** Variables any of the AWS chain's sources starts from (keys, profile, web identity, containers). */
const AWS_CHAIN_VARIABLES = ["AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"];

/** Whether the standard AWS chain has something to start from: variables, or the shared config and credentials files. */
export function awsChainPresent(): boolean {
  if (AWS_CHAIN_VARIABLES.some((name) => env(name))) return true;
  const home = userHomeDirectory();
  const files = [env("AWS_SHARED_CREDENTIALS_FILE") ?? (home && join(home, ".aws", "credentials")), env("AWS_CONFIG_FILE") ?? (home && join(home, ".aws", "config"))];
  return files.some((file) => !!file && !!fileVersionSync(file)?.isFile);
}

/** Where a built-in cloud provider runs, from the environment; each name checked before it can reach a URL. */
export interface Placement {
  project?: string;
  location?: string;
  region?: string;
  resourceName?: string;
  /** Azure: the key is an Entra token. */
  entra?: boolean;
  apiKeyEnv?: string;
  /** Why the provider cannot be used (a malformed name): only that provider is then unusable, not the program. */
  problem?: string;
}

export function builtInPlacement(name: string): Placement {
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
        // An Entra token stands in for the key when there is no key.
        const entra = !env("AZURE_API_KEY") && !!env("AZURE_AD_TOKEN");
        return { ...(resourceName ? { resourceName } : {}), ...(entra ? { entra, apiKeyEnv: "AZURE_AD_TOKEN" } : {}) };
      }
    }
  } catch (error) {
    if (error instanceof CloudNameError) return { problem: error.message };
    throw error;
  }
  return {};
}

/** Why a custom cloud provider's placement from settings.json is not the cloud's own spelling, if it is not. */
export function placementProblem(provider: ProviderConfig): string | undefined {
  if (provider.builtIn) return builtInPlacement(provider.name).problem;
  const checks: Array<[string | undefined, RegExp, string]> = [
    [provider.project, GCP_PROJECT, "Google Cloud project"],
    [provider.location, GCP_LOCATION, "Vertex location"],
    [provider.region, AWS_REGION, "AWS region"],
    [provider.resourceName, AZURE_RESOURCE, "Azure resource name"],
  ];
  try {
    for (const [value, pattern, what] of checks) if (value !== undefined) checkedName(value, pattern, what, `settings.json, provider "${provider.name}"`);
  } catch (error) {
    if (error instanceof CloudNameError) return error.message;
    throw error;
  }
  return undefined;
}

/**
 * The credential of a cloud provider when its own chain decides it: Vertex's
 * Application Default Credentials, Bedrock's API key or AWS chain, a
 * built-in Azure's Entra token. Undefined = an ordinary key variable decides.
 */
export function cloudCredential(provider: ProviderConfig): Credential | undefined {
  switch (provider.api) {
    case "vertex": {
      const source = googleCredentialSource();
      return "hint" in source ? { ok: false, hint: source.hint } : { ok: true, source: "cloud", google: source };
    }
    case "bedrock": {
      const key = env(provider.apiKeyEnv ?? "AWS_BEARER_TOKEN_BEDROCK")?.trim();
      if (key) {
        registerSecret(key);
        return { ok: true, apiKey: key, source: "environment" };
      }
      return awsChainPresent() ? { ok: true, source: "cloud" } : { ok: false, hint: AWS_HINT };
    }
    case "azure": {
      const placement = builtInPlacement(provider.name);
      const token = placement.apiKeyEnv ? env(placement.apiKeyEnv) : undefined;
      return token ? { ok: true, apiKey: token, source: "environment" } : undefined;
    }
  }
  return undefined;
}
