/**
 * Access tokens for Vertex AI from Application Default Credentials.
 *
 * Service-account keys and gcloud user logins are exchanged here, at the
 * token endpoint their file names (`token_uri`): google-auth-library 10
 * signs service-account assertions for, and posts them to, Google's public
 * endpoint whatever the file says, which breaks sovereign clouds, private
 * token endpoints and offline tests. The assertion is signed with Web Crypto
 * (RS256), which every runtime has. Other sources (the metadata server,
 * workload identity federation, impersonation) go through google-auth-library.
 *
 * Tokens are cached until shortly before they expire, and registered as
 * secrets; errors name the problem and the endpoint's host, never a key,
 * an assertion or a token.
 * @module
 */
import type { GoogleCredentialSource } from "../../config/provider-types.ts";
import { fileVersionSync, readTextFile } from "../../runtime/files/fs.ts";
import { registerSecret } from "../../runtime/secrets.ts";
import { ModelError } from "../types.ts";
import { commonJsExports } from "./commonjs-exports.ts";

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";
const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** Credentials files are a few KB; anything larger is not one. */
const MAX_FILE_BYTES = 64 * 1024;
/** A token is renewed this long before it expires, so a request never carries one that lapses in flight. */
const RENEW_EARLY_MS = 5 * 60_000;

/** What a credentials file says, as far as this module uses it. */
type CredentialsFile =
  | { type: "service_account"; client_email: string; private_key: string; private_key_id?: string; token_uri?: string; project_id?: string }
  | { type: "authorized_user"; client_id: string; client_secret: string; refresh_token: string; token_uri?: string; quota_project_id?: string }
  | { type: "other" };

/** Access tokens and the project they bill to by default. */
export interface GoogleTokenSource {
  token(): Promise<string>;
  /** The project the credentials name (a service account's own, a user's quota project), if any. */
  project(): Promise<string | undefined>;
}

const sources = new Map<string, GoogleTokenSource>();

/** One source per credentials location, shared by every session: one token serves them all. */
export function googleTokenSource(source: GoogleCredentialSource, fetch: typeof globalThis.fetch): GoogleTokenSource {
  const key = source.kind === "file" ? `file:${source.path}` : "metadata";
  let found = sources.get(key);
  if (!found) {
    found = createSource(source, fetch);
    sources.set(key, found);
  }
  return found;
}

function createSource(source: GoogleCredentialSource, fetch: typeof globalThis.fetch): GoogleTokenSource {
  let file: Promise<CredentialsFile> | undefined;
  const readFile = () => (file ??= source.kind === "file" ? readCredentialsFile(source.path) : Promise.resolve({ type: "other" as const }));
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (): Promise<string> => {
    const credentials = await readFile();
    const granted =
      credentials.type === "other" ? await libraryToken(source) : await exchange(credentials, fetch);
    registerSecret(granted.token);
    cached = { token: granted.token, renewAt: Date.now() + granted.expiresInMs - RENEW_EARLY_MS };
    return granted.token;
  };
  return {
    async token() {
      if (cached && Date.now() < cached.renewAt) return cached.token;
      // Concurrent requests wait for one exchange; a failed one is not kept.
      pending ??= fetchToken().finally(() => (pending = undefined));
      return pending;
    },
    async project() {
      const credentials = await readFile().catch(() => ({ type: "other" as const }));
      if (credentials.type === "service_account") return credentials.project_id;
      if (credentials.type === "authorized_user") return credentials.quota_project_id;
      return undefined;
    },
  };
}

/** Reads and checks the file; the error says which field is wrong, never what the file holds. */
async function readCredentialsFile(path: string): Promise<CredentialsFile> {
  const invalid = (why: string) => new ModelError(`vertex: the Google credentials file is not usable: ${why}`);
  const version = fileVersionSync(path);
  if (!version?.isFile) throw invalid("it is missing or not a regular file");
  if (version.size > MAX_FILE_BYTES) throw invalid("it is too large to be a credentials file");
  let data: unknown;
  try {
    data = JSON.parse(await readTextFile(path));
  } catch {
    throw invalid("it is not JSON");
  }
  if (!data || typeof data !== "object") throw invalid("it is not a JSON object");
  const record = data as Record<string, unknown>;
  const text = (name: string, required: boolean): string | undefined => {
    const value = record[name];
    if (typeof value === "string" && value.length > 0) return value;
    if (required || value !== undefined) throw invalid(`its "${name}" field is missing or not a string`);
    return undefined;
  };
  const tokenUri = (): { token_uri?: string } => {
    const uri = text("token_uri", false);
    if (uri === undefined) return {};
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw invalid(`its "token_uri" is not a URL`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") throw invalid(`its "token_uri" is not an http(s) URL`);
    return { token_uri: url.href };
  };
  switch (record.type) {
    case "service_account": {
      const privateKey = text("private_key", true)!;
      registerSecret(privateKey);
      const keyId = text("private_key_id", false);
      const project = text("project_id", false);
      return {
        type: "service_account",
        client_email: text("client_email", true)!,
        private_key: privateKey,
        ...(keyId ? { private_key_id: keyId } : {}),
        ...(project ? { project_id: project } : {}),
        ...tokenUri(),
      };
    }
    case "authorized_user": {
      const secret = text("client_secret", true)!;
      const refresh = text("refresh_token", true)!;
      registerSecret(secret);
      registerSecret(refresh);
      const project = text("quota_project_id", false);
      return {
        type: "authorized_user",
        client_id: text("client_id", true)!,
        client_secret: secret,
        refresh_token: refresh,
        ...(project ? { quota_project_id: project } : {}),
        ...tokenUri(),
      };
    }
    case undefined:
      throw invalid(`it has no "type" field`);
    default:
      // External accounts, impersonation and the like: google-auth-library knows them.
      return { type: "other" };
  }
}

/** Trades the file's grant for an access token at its `token_uri`. */
async function exchange(credentials: Exclude<CredentialsFile, { type: "other" }>, fetch: typeof globalThis.fetch): Promise<{ token: string; expiresInMs: number }> {
  const tokenUri = credentials.token_uri ?? GOOGLE_TOKEN_URI;
  const form: Record<string, string> =
    credentials.type === "service_account"
      ? { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: await signedAssertion(credentials, tokenUri) }
      : { grant_type: "refresh_token", client_id: credentials.client_id, client_secret: credentials.client_secret, refresh_token: credentials.refresh_token };
  const host = new URL(tokenUri).host;
  let response: Response;
  try {
    response = await fetch(tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const cause = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.name) : "network error";
    throw new ModelError(`vertex: cannot reach the Google token endpoint ${host} to exchange the credentials (${cause})`);
  }
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (!response.ok) {
    // OAuth errors are a code and a sentence (`invalid_grant: Invalid JWT Signature.`); neither holds a secret.
    const code = typeof body?.error === "string" ? body.error : "";
    const description = typeof body?.error_description === "string" ? body.error_description.slice(0, 300) : "";
    const words = [code, description].filter(Boolean).join(": ") || "no reason given";
    throw new ModelError(`vertex: the Google token endpoint ${host} refused the credentials: HTTP ${response.status} — ${words}`, response.status);
  }
  const token = body?.access_token;
  if (typeof token !== "string" || token.length === 0) throw new ModelError(`vertex: the Google token endpoint ${host} answered without an access token`);
  const expiresIn = typeof body?.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600;
  return { token, expiresInMs: expiresIn * 1000 };
}

/** The RS256-signed JWT a service account presents: issued by it, for the cloud-platform scope, addressed to the token endpoint. */
async function signedAssertion(credentials: Extract<CredentialsFile, { type: "service_account" }>, audience: string): Promise<string> {
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("pkcs8", pemBody(credentials.private_key), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  } catch {
    throw new ModelError(`vertex: the Google credentials file is not usable: its "private_key" is not a PKCS #8 RSA key`);
  }
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: "RS256", typ: "JWT", ...(credentials.private_key_id ? { kid: credentials.private_key_id } : {}) };
  const claims = { iss: credentials.client_email, scope: SCOPE, aud: audience, iat: now, exp: now + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, new TextEncoder().encode(unsigned));
  return `${unsigned}.${base64url(new Uint8Array(signature))}`;
}

function pemBody(pem: string): ArrayBuffer {
  const base64 = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return bytes.buffer;
}

function base64url(data: string | Uint8Array): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The metadata server and the credential types this module does not exchange itself. */
async function libraryToken(source: GoogleCredentialSource): Promise<{ token: string; expiresInMs: number }> {
  const { GoogleAuth } = commonJsExports(await import("google-auth-library"), "GoogleAuth");
  const auth = new GoogleAuth({ scopes: [SCOPE], ...(source.kind === "file" ? { keyFilename: source.path } : {}) });
  try {
    const client = await auth.getClient();
    const { token } = await client.getAccessToken();
    if (!token) throw new Error("no access token");
    const expiry = (client.credentials as { expiry_date?: number } | undefined)?.expiry_date;
    return { token, expiresInMs: expiry ? Math.max(0, expiry - Date.now()) : 3600_000 };
  } catch (error) {
    const what = source.kind === "metadata" ? "the metadata server gave no Google credentials" : "the Google credentials could not be used";
    throw new ModelError(`vertex: ${what} (${error instanceof Error ? error.name : "error"})`);
  }
}
