/**
 * The shape of `settings.json` (user and project). Validated with valibot so
 * a typo gives a precise message instead of a surprise at run time.
 * @module
 */
import * as v from "valibot";
import { readHostEntry } from "../runtime/fetch/allowed-hosts.ts";
import { readHostPattern } from "../runtime/fetch/host-key.ts";
import { canonicalOrigin } from "./web-origin.ts";

export const APPROVAL_MODES = ["read-only", "ask", "write", "auto", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** `auto`: confine commands in `auto` and `read-only` modes where the machine can; `on`: in every mode but `yolo`, never unconfined; `off`: never. */
export const SANDBOX_MODES = ["auto", "on", "off"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** `sandbox` in settings: a mode, or the mode with extra writable and hidden paths (user settings only). */
export type SandboxSettings =
  | SandboxMode
  | { mode?: SandboxMode; allowWrite?: string[]; denyRead?: string[]; allowHosts?: string[]; program?: string };

export const PROMPT_CACHE_MODES = ["off", "short", "long"] as const;
export type PromptCacheMode = (typeof PROMPT_CACHE_MODES)[number];

const ThinkingLevelSchema = v.picklist(["off", "minimal", "low", "medium", "high", "xhigh"]);

const PriceSchema = v.object({
  input: v.pipe(v.number(), v.minValue(0)),
  output: v.pipe(v.number(), v.minValue(0)),
  cacheRead: v.optional(v.pipe(v.number(), v.minValue(0))),
  cacheWrite: v.optional(v.pipe(v.number(), v.minValue(0))),
});

const PositiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));

/** Prices in dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Facts about one model; every field but `id` is optional and falls back to the catalog or defaults. */
export interface ModelEntry {
  id: string;
  name?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  price?: ModelPrice;
}

const ModelEntrySchema = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  name: v.optional(v.string()),
  contextWindow: v.optional(PositiveInt),
  maxOutputTokens: v.optional(PositiveInt),
  reasoning: v.optional(v.boolean()),
  input: v.optional(v.array(v.picklist(["text", "image"]))),
  price: v.optional(PriceSchema),
});

/** The wire APIs a provider can speak. */
export const PROVIDER_KINDS = ["anthropic", "openai", "openai-compatible", "google", "vertex", "bedrock", "azure"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** A provider of `settings.json`'s `providers`. */
export interface ProviderSettings {
  api: ProviderKind;
  baseUrl?: string;
  /** Name of the environment variable holding the key; no key needed when absent. */
  apiKeyEnv?: string;
  headers?: Record<string, string>;
  models?: ModelEntry[];
  /** `vertex`: the Google Cloud project and location (`us-central1`, `global`). */
  project?: string;
  location?: string;
  /** `bedrock`: the AWS region. */
  region?: string;
  /** `azure`: the resource name (`https://NAME.openai.azure.com`), the API version, and whether the key is an Entra token. */
  resourceName?: string;
  apiVersion?: string;
  auth?: "api-key" | "entra";
}

/**
 * A name that ends up in a URL's host or path: letters, digits and hyphens only, so it can never choose
 * the host or add a path (each cloud's exact spelling is checked when the provider is first used).
 */
const cloudName = (example: string) => v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, `must be a name of letters, digits and hyphens, such as ${example}`));

const ProviderSchema = v.object({
  api: v.picklist(PROVIDER_KINDS),
  project: v.optional(cloudName("my-project-123")),
  location: v.optional(cloudName("us-central1")),
  region: v.optional(cloudName("us-east-1")),
  resourceName: v.optional(cloudName("my-openai-resource")),
  apiVersion: v.optional(cloudName("2024-10-21")),
  auth: v.optional(v.picklist(["api-key", "entra"])),
  baseUrl: v.optional(v.pipe(v.string(), v.url())),
  /** Name of the environment variable holding the key; no key needed when absent. */
  apiKeyEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name"))),
  headers: v.optional(v.record(v.string(), v.string())),
  models: v.optional(v.array(ModelEntrySchema)),
});

/** One entry of `permissionRules` (see docs/configuration.md). */
export interface PermissionRule {
  action: "allow" | "ask" | "deny";
  path?: string;
  command?: string;
  /** A host the `fetch` tool reaches: `name`, `name:port` or `*.domain`. */
  host?: string;
  tools?: string[];
}

const PermissionRuleSchema = v.object({
  action: v.picklist(["allow", "ask", "deny"]),
  path: v.optional(v.pipe(v.string(), v.minLength(1))),
  command: v.optional(v.pipe(v.string(), v.minLength(1))),
  host: v.optional(v.pipe(v.string(), v.check((text) => readHostPattern(text, { wildcard: true }) !== undefined, "must be a host, host:port or *.domain"))),
  tools: v.optional(v.pipe(v.array(v.string()), v.minLength(1))),
});

export const SEARCH_SERVICES = ["searxng", "brave", "tavily", "exa"] as const;
export type SearchService = (typeof SEARCH_SERVICES)[number];

/**
 * `webSearch`: `false` turns searching off; otherwise the provider's own search is on where the model has one,
 * and `service` names the search service models without one use (user settings only, see docs/web-search.md).
 */
export type WebSearchSettings =
  | boolean
  | {
      service?: SearchService;
      /** The service's address: SearXNG's base URL (required for it); the keyed services have a default. */
      url?: string;
      /** The environment variable holding the service's key (Brave, Tavily, Exa). */
      apiKeyEnv?: string;
      /** Searches the provider may run in one model request (Anthropic's `max_uses`; default 5). */
      maxUses?: number;
      /** Results one service search returns at most (default 8). */
      maxResults?: number;
      /** How long one service search may take (default 20). */
      timeoutSeconds?: number;
    };

// A URL the service tool cannot use (another scheme, credentials in it) is refused when a search runs.
const UpTo20 = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)));
const WebSearchSchema = v.union([
  v.boolean(),
  v.object({
    service: v.optional(v.picklist(SEARCH_SERVICES)),
    url: v.optional(v.pipe(v.string(), v.url())),
    apiKeyEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_]\w*$/, "must be an environment variable name"))),
    maxUses: UpTo20,
    maxResults: UpTo20,
    timeoutSeconds: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(120))),
  }),
]);

/** `settings.json`, user or project; every field is optional. */
export interface Settings {
  defaultModel?: string;
  approvalMode?: ApprovalMode;
  thinkingLevel?: "off" | "minimal" | "low" | "medium" | "high" | "xhigh";
  permissionRules?: PermissionRule[];
  providers?: Record<string, ProviderSettings>;
  /** Catalog additions or overrides for models of built-in providers, keyed `provider/id`. */
  models?: Record<string, Partial<Omit<ModelEntry, "id">>>;
  /** Model calls allowed in one prompt turn before it stops with `max_turn_requests`. */
  maxTurnRequests?: number;
  /** Provider retries on rate limits and server errors. */
  maxRetries?: number;
  /** Prompt caching: `short` (the provider's default, Anthropic's 5 minutes), `long` (Anthropic's 1 hour) or `off`. */
  promptCache?: PromptCacheMode;
  sessionDir?: string;
  /** When older history is summarised: tokens kept free for the reply, and how much recent history stays verbatim. */
  compaction?: { reserveTokens?: number; keepRecentTokens?: number };
  /** MCP servers passed by clients: how long each may take to start before the session goes on without it. */
  mcp?: { startupTimeoutSeconds?: number };
  /** Bounds of `agent serve` (see docs/serve.md). */
  serve?: {
    maxMessageBytes?: number;
    maxBufferedBytes?: number;
    pingIntervalSeconds?: number;
    maxConnections?: number;
    maxClientsPerSession?: number;
    maxAttachedSessions?: number;
    /** Streamable HTTP connections with no stream, request or turn for this long are closed. */
    httpIdleTimeoutSeconds?: number;
    /** When the server is full, a Streamable HTTP connection idle for this long may be closed to let a new client in. */
    httpIdleEvictSeconds?: number;
    /** Browser origins allowed besides the server's own (`http://localhost:3000`). */
    allowedOrigins?: string[];
  };
  /** How long the editor has to answer a permission request before the tool is blocked. */
  permissionTimeoutSeconds?: number;
  /** The `fetch` tool: hosts it may reach although they are not public (user settings only). */
  fetch?: { allowHosts?: string[]; timeoutSeconds?: number };
  /** The sandbox commands run in (user settings only; see docs/sandbox.md). */
  sandbox?: SandboxSettings;
  /** The model catalogue's daily refresh from models.dev (user settings only): `refresh: true` turns it on; `url` names a mirror. */
  catalog?: { refresh?: boolean; url?: string };
  /** Web search: the provider's own, or a service (user settings only; a project may only turn it off). */
  webSearch?: WebSearchSettings;
  /** Language-server diagnostics after edits: `false` turns them off; servers and waits are the user's (see docs/language-servers.md). */
  lsp?: false | LspSettings;
}

/** A language server named in the user's settings: the command that starts it, and the file extensions it serves. */
export interface LspServerSettings {
  command: string[];
  extensions?: string[];
}

/** `lsp` in the user's settings: servers added or replaced (`false` turns a built-in one off), and how long to wait. */
export interface LspSettings {
  servers?: Record<string, LspServerSettings | false>;
  /** How long an edit waits for diagnostics when its server has to start first (default 20). */
  startWaitSeconds?: number;
  /** How long an edit waits for diagnostics from a running server (default 5). */
  waitSeconds?: number;
}

const LspServerSchema = v.object({
  command: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1)),
  extensions: v.optional(v.array(v.pipe(v.string(), v.regex(/^\.?[A-Za-z0-9_+-]{1,16}$/, "must be a file extension like .ts")))),
});

const LspSchema = v.union([
  v.literal(false),
  v.object({
    servers: v.optional(v.record(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_-]*$/i, "server names use letters, digits, - and _")), v.union([v.literal(false), LspServerSchema]))),
    startWaitSeconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(600))),
    waitSeconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(600))),
  }),
]);

const AbsolutePath = v.pipe(v.string(), v.check((text) => text.startsWith("/") || text.startsWith("~/"), "must be an absolute path or start with ~/"));

/** Validates `settings.json`; its output is checked against `Settings` at compile time. */
export const SettingsSchema: v.GenericSchema<unknown, Settings> = v.object({
  defaultModel: v.optional(v.pipe(v.string(), v.regex(/^[^/\s]+\/\S+$/, "must look like provider/model"))),
  approvalMode: v.optional(v.picklist(APPROVAL_MODES)),
  thinkingLevel: v.optional(ThinkingLevelSchema),
  permissionRules: v.optional(v.array(PermissionRuleSchema)),
  providers: v.optional(v.record(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_-]*$/i, "provider names use letters, digits, - and _")), ProviderSchema)),
  /** Catalog additions or overrides for models of built-in providers, keyed `provider/id`. */
  models: v.optional(v.record(v.string(), v.partial(v.omit(ModelEntrySchema, ["id"])))),
  /** Model calls allowed in one prompt turn before it stops with `max_turn_requests`. */
  maxTurnRequests: v.optional(PositiveInt),
  /** Provider retries on rate limits and server errors. */
  maxRetries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10))),
  promptCache: v.optional(v.picklist(PROMPT_CACHE_MODES)),
  sessionDir: v.optional(v.string()),
  /** When older history is summarised: tokens kept free for the reply, and how much recent history stays verbatim. */
  compaction: v.optional(v.object({ reserveTokens: v.optional(PositiveInt), keepRecentTokens: v.optional(PositiveInt) })),
  /** MCP servers passed by clients: how long each may take to start before the session goes on without it. */
  mcp: v.optional(v.object({ startupTimeoutSeconds: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(600))) })),
  /** Bounds of `agent serve` (see docs/serve.md). */
  serve: v.optional(
    v.object({
      maxMessageBytes: v.optional(PositiveInt),
      maxBufferedBytes: v.optional(PositiveInt),
      pingIntervalSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
      maxConnections: v.optional(PositiveInt),
      maxClientsPerSession: v.optional(PositiveInt),
      maxAttachedSessions: v.optional(PositiveInt),
      httpIdleTimeoutSeconds: v.optional(v.pipe(v.number(), v.minValue(0.01), v.maxValue(86_400))),
      httpIdleEvictSeconds: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(86_400))),
      allowedOrigins: v.optional(v.array(v.pipe(v.string(), v.check((text) => canonicalOrigin(text) !== undefined, "must be an origin like http://localhost:3000 (scheme, host, optional port)")))),
    }),
  ),
  /** How long the editor has to answer a permission request before the tool is blocked. */
  permissionTimeoutSeconds: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(86_400))),
  /** The `fetch` tool: hosts it may reach although they are not public (user settings only). */
  fetch: v.optional(
    v.object({
      allowHosts: v.optional(v.array(v.pipe(v.string(), v.check((text) => readHostEntry(text) !== undefined, "must be a host or host:port, like docs.internal or 127.0.0.1:3000")))),
      /** How long one fetch may take, redirects included (default 30). */
      timeoutSeconds: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(600))),
    }),
  ),
  catalog: v.optional(
    v.object({
      refresh: v.optional(v.boolean()),
      url: v.optional(v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//, "must be an http or https URL"))),
    }),
  ),
  webSearch: v.optional(WebSearchSchema),
  lsp: v.optional(LspSchema),
  sandbox: v.optional(
    v.union([
      v.picklist(SANDBOX_MODES),
      v.object({
        mode: v.optional(v.picklist(SANDBOX_MODES)),
        allowWrite: v.optional(v.array(AbsolutePath)),
        denyRead: v.optional(v.array(AbsolutePath)),
        allowHosts: v.optional(v.array(v.pipe(v.string(), v.check((text) => readHostPattern(text, { wildcard: true }) !== undefined, "must be a host, host:port or *.domain, like packages.example.com or 127.0.0.1:3000")))),
        /** The bubblewrap to use instead of the system's (it must be root's alone, like the system's). */
        program: v.optional(AbsolutePath),
      }),
    ]),
  ),
});

/** `auth.json`: keys by provider name. */
export type AuthFile = Record<string, { type: "api_key"; key: string }>;

/** Validates `auth.json`. */
export const AuthFileSchema: v.GenericSchema<unknown, AuthFile> = v.record(
  v.string(),
  v.object({ type: v.literal("api_key"), key: v.pipe(v.string(), v.minLength(1)) }),
);

/** "approvalMode: Invalid type: expected …" — one line per issue, with its path. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const path = v.getDotPath(issue);
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
