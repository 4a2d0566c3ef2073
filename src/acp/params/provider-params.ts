/**
 * Params of the unstable `providers/set` and `providers/disable`, read by hand
 * rather than with a schema library: a refusal must name what is wrong without
 * ever quoting a header value (a gateway key), and schema messages quote what
 * they received. Header values are registered as secrets before anything is
 * checked, so even a refused request cannot put one in a log.
 * @module
 */
import { registerSecret } from "../../runtime/secrets.ts";
import { invalidParams } from "../errors.ts";

export interface SetProviderParams {
  providerId: string;
  apiType: string;
  baseUrl: string;
  headers: Record<string, string>;
}

const MAX_ID = 128;
const MAX_URL = 2048;
const MAX_HEADERS = 32;
const MAX_HEADER_VALUE = 8 * 1024;
const MAX_HEADER_BYTES = 32 * 1024;
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Headers the HTTP client sets itself: a gateway route may not replace them. */
const RESERVED = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer", "expect", "proxy-connection"]);
const CONTROL = /[\u0000-\u001f\u007f]/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A short text field: present, a string, no control characters, at most `max` characters. The value is shown only when harmless. */
function text(params: Record<string, unknown>, field: string, max: number): string {
  const value = params[field];
  if (typeof value !== "string" || value.length === 0) throw invalidParams(`${field} must be a non-empty string`);
  if (value.length > max) throw invalidParams(`${field} is longer than ${max} characters`);
  if (CONTROL.test(value)) throw invalidParams(`${field} holds a control character (CR, LF, …)`);
  return value;
}

/** An http(s) URL with a host and no user name or password in it (credentials go in headers, never in a URL). */
function baseUrl(params: Record<string, unknown>): string {
  const value = text(params, "baseUrl", MAX_URL);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidParams("baseUrl is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidParams(`baseUrl must be an http or https URL, not ${url.protocol.slice(0, 20)}`);
  if (url.username || url.password) throw invalidParams("baseUrl must not hold a user name or password: send credentials as headers");
  if (!url.hostname) throw invalidParams("baseUrl has no host");
  if (url.hash) throw invalidParams("baseUrl must not have a #fragment");
  return value;
}

function headers(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw invalidParams("headers must be an object of header names to string values");
  const entries = Object.entries(raw);
  // Before any check: whatever is refused below, no value of this request can reach a log.
  for (const [, value] of entries) if (typeof value === "string") registerSecret(value);
  if (entries.length > MAX_HEADERS) throw invalidParams(`headers has ${entries.length} entries; at most ${MAX_HEADERS} are accepted`);
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  let bytes = 0;
  for (const [index, [name, value]] of entries.entries()) {
    if (!HEADER_NAME.test(name)) throw invalidParams(`headers: entry ${index + 1} has a name that is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~- only, at most 128)`);
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) throw invalidParams(`headers: ${name} is set by the HTTP client and cannot be routed`);
    if (seen.has(lower)) throw invalidParams(`headers: ${name} is given twice (header names ignore case)`);
    seen.add(lower);
    if (typeof value !== "string") throw invalidParams(`headers: the value of ${name} must be a string`);
    if (CONTROL.test(value.replace(/\t/g, ""))) throw invalidParams(`headers: the value of ${name} holds a control character (CR, LF, …)`);
    if (value.length > MAX_HEADER_VALUE) throw invalidParams(`headers: the value of ${name} is longer than ${MAX_HEADER_VALUE} characters`);
    bytes += name.length + value.length;
    if (bytes > MAX_HEADER_BYTES) throw invalidParams(`headers are larger than ${MAX_HEADER_BYTES / 1024} KiB together`);
    out[name] = value;
  }
  return out;
}

/** `providers/set` params, checked; refuses with -32602 naming the field (never a header's value). */
export function parseSetProvider(raw: unknown): SetProviderParams {
  if (!isObject(raw)) throw invalidParams("params must be an object");
  // Headers first: their values become secrets before any other refusal could be written anywhere.
  const parsedHeaders = headers(raw.headers);
  return { providerId: text(raw, "providerId", MAX_ID), apiType: text(raw, "apiType", MAX_ID), baseUrl: baseUrl(raw), headers: parsedHeaders };
}

/** `providers/disable` params. */
export function parseDisableProvider(raw: unknown): { providerId: string } {
  if (!isObject(raw)) throw invalidParams("params must be an object");
  return { providerId: text(raw, "providerId", MAX_ID) };
}

/** Params that carry nothing but `_meta` (`providers/list`, `auth/status`). */
export function parseNoParams(raw: unknown): Record<string, never> {
  if (raw !== undefined && raw !== null && !isObject(raw)) throw invalidParams("params must be an object");
  return {};
}
