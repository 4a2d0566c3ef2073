/**
 * Turns whatever a provider package throws or streams as an error into a short
 * `ModelError` a user can act on: provider, HTTP status, the provider's own
 * words. Never request headers, never the key.
 * @module
 */
import { proxyNote } from "../runtime/fetch/proxy-env.ts";
import { MIN_SECRET_LENGTH, REDACTED, redact, registerSecret } from "../runtime/secrets.ts";
import { networkFailure } from "./network-failure.ts";
import { ModelError, type ProviderEndpoint } from "./types.ts";

const MAX_DETAIL = 300;

/** The endpoint's base URL without credentials or query. */
function displayUrl(endpoint: ProviderEndpoint): string {
  const raw = endpoint.baseUrl ?? "the provider";
  try {
    const url = new URL(raw);
    // Credentials and query strings (`?api-key=`) stay out of messages.
    return `${url.origin}${url.pathname}`.replace(/\/$/, "");
  } catch {
    return raw;
  }
}

/**
 * Maps a provider error (thrown, or from an `error` stream part) to a redacted
 * `ModelError`. Pass the endpoint with the base URL actually used.
 */
export function toModelError(error: unknown, endpoint: ProviderEndpoint): ModelError {
  if (error instanceof ModelError) return error;
  // A client made outside the configuration (the public API, tests) may not have registered its key;
  // it must be known before any provider text is cut, or a cut could leave part of it.
  for (const secret of endpointSecrets(endpoint)) registerSecret(secret);
  const status = statusOf(error);
  let message: string;
  if (status !== undefined && status >= 200 && status < 300) {
    // The request succeeded and the body then failed: the connection dropped mid-stream.
    const cause = asRecord(error)?.cause;
    message = `the response stream broke off (${networkProblem(cause) ?? providerMessage(cause) ?? "connection lost"})`;
  } else if (status !== undefined) {
    const detail = providerMessage(error);
    message = `HTTP ${status}${detail ? ` — ${detail}` : ""}`;
  } else {
    const network = networkProblem(error);
    // Behind a proxy, whether the endpoint or the proxy failed is not always told apart: say which proxy is set.
    const proxy = network && endpoint.baseUrl ? proxyNote(endpoint.baseUrl) : undefined;
    message = network
      ? `could not connect to ${displayUrl(endpoint)} (${network}${proxy ? `; ${proxy}` : ""})`
      : (providerMessage(error) ?? "the model call failed");
  }
  return new ModelError(scrub(`${endpoint.provider}: ${message}`, endpoint), status && status >= 300 ? status : undefined);
}

function statusOf(error: unknown): number | undefined {
  const status = asRecord(error)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** The provider's own error text: from the response body when there is one, else the error's message. */
function providerMessage(error: unknown): string | undefined {
  const record = asRecord(error);
  if (!record) return typeof error === "string" ? clip(error) : undefined;
  const body = record.responseBody;
  if (typeof body === "string" && body.trim()) {
    const fromJson = messageFromBody(body);
    if (fromJson) return clip(fromJson);
    if (!/^\s*</.test(body)) return clip(body); // skip HTML error pages
  }
  // Stream error parts are often plain objects: `{ type: "overloaded_error", message }`.
  const nested = asRecord(record.error);
  if (typeof nested?.message === "string") return clip(nested.message);
  if (typeof record.message === "string" && record.message) return clip(record.message);
  return undefined;
}

function messageFromBody(body: string): string | undefined {
  try {
    const data = asRecord(JSON.parse(body));
    const err = data?.error;
    if (typeof err === "string") return err;
    const nested = asRecord(err);
    if (typeof nested?.message === "string") return nested.message;
    if (typeof data?.message === "string") return data.message;
    if (typeof data?.detail === "string") return data.detail;
  } catch {
    // not JSON
  }
  return undefined;
}

/** The connection failure under `error`, from its chain or the provider package's "Cannot connect to API" wrapper. */
function networkProblem(error: unknown): string | undefined {
  const failure = networkFailure(error);
  if (failure) return failure.text;
  const record = asRecord(error);
  if (typeof record?.message === "string" && /^Cannot connect to API/.test(record.message)) {
    return clip(record.message.replace(/^Cannot connect to API:\s*/, "")) || "network error";
  }
  return undefined;
}

/** The endpoint's key and the values of its credential-like headers. */
function endpointSecrets(endpoint: ProviderEndpoint): Array<string | undefined> {
  const credentialHeaders = Object.entries(endpoint.headers ?? {}).filter(([name]) => /auth|key|token|secret|cookie/i.test(name));
  return [endpoint.apiKey, ...credentialHeaders.map(([, value]) => value)];
}

function scrub(text: string, endpoint: ProviderEndpoint): string {
  let out = text;
  // The key and credential headers may not be registered as secrets yet; hide them regardless.
  for (const secret of endpointSecrets(endpoint)) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  return redact(out);
}

function clip(text: string): string {
  // Hidden before the cut, which could otherwise leave part of a key that redaction no longer recognises.
  const oneLine = redact(text).replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL - 1)}…` : oneLine;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
}
