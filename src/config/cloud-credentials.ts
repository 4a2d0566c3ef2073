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

/** Where Google credentials come from: a file (service account, gcloud user login), or the metadata server of the machine. */
export type GoogleCredentialSource = { kind: "file"; path: string } | { kind: "metadata" };

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

/** The AWS secrets of the environment: registered for redaction as soon as the configuration is read. */
export const AWS_SECRET_VARIABLES = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"];
