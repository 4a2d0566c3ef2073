/**
 * Provider models for the clouds' kinds: the Gemini API, Vertex AI (Gemini,
 * and Claude through Anthropic on Vertex), Amazon Bedrock's Converse API and
 * Azure OpenAI, each built with its AI SDK package. Everything that reaches a
 * URL is passed explicitly (base URL, region, project, key or token source),
 * so no package falls back to an environment variable of its own.
 * @module
 */
import type { LanguageModel } from "../ai-sdk-v3.ts";
import { ModelError, type ModelInfo, type ProviderEndpoint } from "../types.ts";
import { isVertexClaude } from "../prompt-cache.ts";
import { registerSecret } from "../../runtime/secrets.ts";
import { commonJsExports } from "./commonjs-exports.ts";
import { googleTokenSource } from "./google-token.ts";

type Fetch = typeof globalThis.fetch;

const GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta";
const DEFAULT_VERTEX_LOCATION = "global";
const DEFAULT_AWS_REGION = "us-east-1";
/** Azure's deployment URLs need a dated API version; `v1` selects Azure's unversioned v1 API instead. */
const DEFAULT_AZURE_API_VERSION = "2024-10-21";

/** The single-file build leaves the clouds' credential libraries out (its size budget); the npm package and the binary carry them. */
function leftOut(error: unknown): boolean {
  return error instanceof Error && error.message.includes("left out of the single-file build");
}

export async function cloudLanguageModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch: Fetch | undefined): Promise<LanguageModel> {
  try {
    return await cloudModel(info, endpoint, fetch);
  } catch (error) {
    if (!leftOut(error)) throw error;
    throw new ModelError(
      `${endpoint.provider}: ${endpoint.api === "vertex" ? "Vertex AI" : "the AWS credential chain"} is not part of the single-file build; ` +
        `use the npm package or the compiled binary${endpoint.api === "bedrock" ? ", or a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)" : ""}`,
    );
  }
}

async function cloudModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch: Fetch | undefined): Promise<LanguageModel> {
  switch (endpoint.api) {
    case "google":
      return geminiModel(info, endpoint, fetch);
    case "vertex":
      return vertexModel(info, endpoint, fetch ?? globalThis.fetch);
    case "bedrock":
      return bedrockModel(info, endpoint, fetch);
    case "azure":
      return azureModel(info, endpoint, fetch);
    default:
      throw new ModelError(`${endpoint.provider}: no cloud provider for the ${endpoint.api} API`);
  }
}

async function geminiModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch: Fetch | undefined): Promise<LanguageModel> {
  const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
  return createGoogleGenerativeAI({ baseURL: endpoint.baseUrl ?? GEMINI_URL, apiKey: endpoint.apiKey ?? "", headers: endpoint.headers, fetch })(info.id);
}

/** Vertex's host for a location: `global`, the multi-regions `us`/`eu`, or a region. */
function vertexHost(location: string): string {
  if (location === "global") return "aiplatform.googleapis.com";
  if (location === "us" || location === "eu") return `aiplatform.${location}.rep.googleapis.com`;
  return `${location}-aiplatform.googleapis.com`;
}

/**
 * `baseUrl` (or the one built from project and location) stops at
 * `…/v1/projects/P/locations/L`; the publisher path is added here, so one
 * setting serves Gemini and Claude alike.
 */
async function vertexModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch: Fetch): Promise<LanguageModel> {
  if (!endpoint.google) throw new ModelError(`${endpoint.provider}: no Google credentials (set GOOGLE_APPLICATION_CREDENTIALS or run \`gcloud auth application-default login\`)`);
  const tokens = googleTokenSource(endpoint.google, fetch);
  let base = endpoint.baseUrl;
  // A gateway's URL may name neither; the package wants both all the same (it builds no URL from them then).
  const named = base ? /\/projects\/([^/]+)\/locations\/([^/]+)$/.exec(base) : null;
  let project = named?.[1] ?? endpoint.project ?? "";
  const location = named?.[2] ?? endpoint.location ?? DEFAULT_VERTEX_LOCATION;
  if (!base) {
    project ||= (await tokens.project()) ?? "";
    if (!project) throw new ModelError(`${endpoint.provider}: no Google Cloud project: set GOOGLE_CLOUD_PROJECT, or "project" for this provider in settings.json`);
    base = `https://${vertexHost(location)}/v1/projects/${project}/locations/${location}`;
  }
  const generateAuthToken = () => tokens.token();
  if (isVertexClaude(info.id)) {
    const { createVertexAnthropic } = await import("@ai-sdk/google-vertex/anthropic");
    return createVertexAnthropic({ baseURL: `${base}/publishers/anthropic/models`, headers: endpoint.headers, fetch, generateAuthToken })(info.id);
  }
  const [{ createVertex }, library] = await Promise.all([import("@ai-sdk/google-vertex"), import("google-auth-library")]);
  const { AuthClient } = commonJsExports(library, "AuthClient");
  // The Gemini side takes its token from a google-auth-library client: this one hands out ours.
  class TokenClient extends AuthClient {
    override async getAccessToken() {
      return { token: await generateAuthToken() };
    }
    override async getRequestHeaders() {
      return new Headers({ authorization: `Bearer ${await generateAuthToken()}` });
    }
    override request(): never {
      throw new Error("vertex: the token client makes no requests of its own");
    }
  }
  return createVertex({
    // An empty key keeps the package from reading GOOGLE_VERTEX_API_KEY (its express mode).
    apiKey: "",
    project: project || "unnamed",
    location,
    baseURL: `${base}/publishers/google`,
    headers: endpoint.headers,
    fetch,
    googleAuthOptions: { authClient: new TokenClient() },
  })(info.id);
}

async function bedrockModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch: Fetch | undefined): Promise<LanguageModel> {
  const region = endpoint.region ?? DEFAULT_AWS_REGION;
  const { createAmazonBedrock } = await import("@ai-sdk/amazon-bedrock");
  const key = endpoint.apiKey;
  // A Bedrock API key is sent as a bearer token; without one, requests are SigV4-signed with the standard AWS chain.
  const credentialProvider = key ? undefined : await awsChain();
  return createAmazonBedrock({
    region,
    baseURL: endpoint.baseUrl ?? `https://bedrock-runtime.${region}.${region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com"}`,
    apiKey: key ?? "",
    ...(credentialProvider ? { credentialProvider } : {}),
    headers: endpoint.headers,
    fetch,
  })(info.id);
}

/** The AWS SDK's default chain (environment, shared files and profiles, SSO, web identity, containers, instance metadata), cached between calls. */
let chain: Promise<() => Promise<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>> | undefined;
function awsChain() {
  chain ??= (async () => {
    const { defaultProvider } = commonJsExports(await import("@aws-sdk/credential-provider-node"), "defaultProvider");
    const provider = defaultProvider();
    return async () => {
      const credentials = await provider();
      registerSecret(credentials.secretAccessKey);
      registerSecret(credentials.sessionToken);
      return { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}) };
    };
  })();
  return chain;
}

async function azureModel(info: ModelInfo, endpoint: ProviderEndpoint, fetch: Fetch | undefined): Promise<LanguageModel> {
  if (!endpoint.baseUrl && !endpoint.resourceName) {
    throw new ModelError(`${endpoint.provider}: no Azure endpoint: set AZURE_RESOURCE_NAME, or "resourceName" or "baseUrl" for this provider in settings.json`);
  }
  if (!endpoint.apiKey) throw new ModelError(`${endpoint.provider}: no Azure key or Entra token: set AZURE_API_KEY or AZURE_AD_TOKEN`);
  const { createAzure } = await import("@ai-sdk/azure");
  const apiVersion = endpoint.apiVersion ?? DEFAULT_AZURE_API_VERSION;
  const token = endpoint.apiKey;
  return createAzure({
    baseURL: endpoint.baseUrl ?? `https://${endpoint.resourceName}.openai.azure.com/openai`,
    ...(endpoint.entra ? { tokenProvider: async () => token } : { apiKey: token }),
    apiVersion,
    useDeploymentBasedUrls: apiVersion !== "v1",
    headers: endpoint.headers,
    fetch,
  }).chat(info.id);
}
