/**
 * One bounded HTTP(S) GET that reaches only public addresses, unless the
 * user allowed the host. The host name is resolved here and every address
 * it has is checked; the connection is then made to the checked address
 * (the request's `lookup` hands it over), so nothing can re-resolve the
 * name to another address between the check and the connection. TLS is
 * still verified against the host name. Redirects are not followed here:
 * each hop is a new call, checked again (see the `fetch` tool). The lookup
 * ends with the call's signal, however long the resolver takes (bounded-lookup.ts).
 * With a proxy in the environment the proxy connects; the name is checked
 * here all the same, and `NO_PROXY` is the runtime's to honour.
 * @module
 */
import type { LookupFunction } from "node:net";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { hostAllowed } from "./allowed-hosts.ts";
import { lookupWithin, ResolverStalledError } from "./bounded-lookup.ts";
import { platformFetch } from "./platform-fetch.ts";
import { proxyConfigured } from "./proxy-env.ts";
import { isIpLiteral, nonPublicReason } from "./public-address.ts";

/** A request the guard would not send; its message says why, for the model to read. */
export class FetchRefusedError extends Error {
  override name = "FetchRefusedError";
}

export interface GuardedGetOptions {
  /** `fetch.allowHosts` of the user's settings. */
  allowHosts: readonly string[];
  /** Bytes of body kept; the download stops there. */
  maxBytes: number;
  signal: AbortSignal;
  /** Sent as `Accept`. */
  accept: string;
  /** More request headers (a search service's key). */
  headers?: Record<string, string>;
  /** A JSON body: the request is a POST of it instead of a GET (search services that take their query so). */
  jsonBody?: string;
  /** Sent as `User-Agent` instead of the fetch tool's. */
  userAgent?: string;
}

export interface GuardedResponse {
  status: number;
  /** `location` of a redirect, as sent. */
  location?: string;
  contentType: string;
  body: Uint8Array;
  /** The body went on past `maxBytes`. */
  cut: boolean;
}

const USER_AGENT = "acp-edge (fetch tool)";

/** Why `url` may not be fetched at all (scheme, credentials), or undefined. */
export function urlRefusal(url: URL): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}`;
  if (url.username || url.password) return "URLs with credentials in them are not fetched";
  return undefined;
}

/**
 * Why `url` is refused on what it says alone, with nothing looked up and
 * nothing sent: an IP literal that is not public, or a `localhost` name
 * (always the loopback), on a host the user did not allow. This is all that
 * may be checked before a call is allowed: resolving a name the model chose
 * already carries it out of the machine.
 */
export function refusalWithoutLookup(url: URL, allowHosts: readonly string[]): string | undefined {
  if (hostAllowed(url, allowHosts)) return undefined;
  const host = url.hostname;
  if (isIpLiteral(host)) {
    const bare = host.replace(/^\[|\]$/g, "");
    const reason = nonPublicReason(bare);
    return reason ? refusal(url, bare, reason) : undefined;
  }
  const name = host.replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return refusal(url, "the loopback", "loopback");
  return undefined;
}

/**
 * The address to connect to, after checking every address the host has;
 * throws `FetchRefusedError` when one is not public and the user did not allow the host.
 * It resolves the name: call it only for a request that is allowed to go out.
 */
async function checkedAddress(url: URL, allowHosts: readonly string[], signal: AbortSignal): Promise<{ address: string; family: 4 | 6 }> {
  const refused = refusalWithoutLookup(url, allowHosts);
  if (refused) throw new FetchRefusedError(refused);
  const host = url.hostname;
  const allowed = hostAllowed(url, allowHosts);
  if (isIpLiteral(host)) {
    const bare = host.replace(/^\[|\]$/g, "");
    return { address: bare, family: bare.includes(":") ? 6 : 4 };
  }
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await lookupWithin(host, signal);
  } catch (error) {
    // The time bound or the cancel: the caller tells which.
    if (signal.aborted) throw signal.reason;
    if (error instanceof ResolverStalledError) throw new FetchRefusedError(error.message);
    throw new FetchRefusedError(`${host} could not be resolved: ${(error as { code?: string }).code ?? (error as Error).message}`);
  }
  if (addresses.length === 0) throw new FetchRefusedError(`${host} has no address`);
  if (!allowed) {
    for (const { address } of addresses) {
      const reason = nonPublicReason(address);
      if (reason) throw new FetchRefusedError(refusal(url, address, reason));
    }
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

function refusal(url: URL, address: string, reason: string): string {
  return `${url.host} is not fetched: it ${isIpLiteral(url.hostname) ? "is" : `resolves to ${address},`} not a public address (${reason}). ` +
    `Only the user can allow it, with "fetch": {"allowHosts": ["${url.host}"]} in the settings.json of acp-edge's home.`;
}

/** GETs `url` once (no redirects followed), reaching only what the checks allow. */
export async function guardedGet(url: URL, options: GuardedGetOptions): Promise<GuardedResponse> {
  const refused = urlRefusal(url);
  if (refused) throw new FetchRefusedError(refused);
  const target = await checkedAddress(url, options.allowHosts, options.signal);
  options.signal.throwIfAborted();
  if (proxyConfigured()) return proxiedGet(url, options);
  return directGet(url, target, options);
}

function directGet(url: URL, target: { address: string; family: 4 | 6 }, options: GuardedGetOptions): Promise<GuardedResponse> {
  // The one checked address, whatever the client asks for.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<GuardedResponse>((resolve, reject) => {
    const request = send(url, {
      method: options.jsonBody === undefined ? "GET" : "POST",
      lookup,
      signal: options.signal,
      headers: requestHeaders(options),
    });
    request.on("error", (error) => reject(options.signal.aborted ? options.signal.reason : new FetchRefusedError(`${url.host} could not be fetched: ${error.message}`)));
    request.on("response", (response: IncomingMessage) => {
      const chunks: Uint8Array[] = [];
      let kept = 0;
      let done = false;
      const finish = (cut: boolean) => {
        if (done) return;
        done = true;
        const location = response.headers.location;
        resolve({ status: response.statusCode ?? 0, ...(location ? { location } : {}), contentType: String(response.headers["content-type"] ?? ""), body: join(chunks, kept), cut });
      };
      response.on("data", (chunk: Uint8Array) => {
        if (done) return;
        const room = options.maxBytes - kept;
        if (chunk.byteLength > room) {
          chunks.push(chunk.subarray(0, room));
          kept += room;
          finish(true);
          // Nothing more is read: the connection goes.
          request.destroy();
          return;
        }
        chunks.push(chunk);
        kept += chunk.byteLength;
      });
      response.on("end", () => finish(false));
      response.on("error", (error) => (done ? undefined : reject(options.signal.aborted ? options.signal.reason : error)));
      response.on("close", () => finish(false));
    });
    request.end(options.jsonBody);
  });
}

/** The headers of a request: the caller's own, then the ones every request of this module sends its way. */
function requestHeaders(options: GuardedGetOptions): Record<string, string> {
  return {
    ...options.headers,
    "user-agent": options.userAgent ?? USER_AGENT,
    accept: options.accept,
    "accept-encoding": "identity",
    ...(options.jsonBody === undefined ? {} : { "content-type": "application/json" }),
  };
}

async function proxiedGet(url: URL, options: GuardedGetOptions): Promise<GuardedResponse> {
  const send = (await platformFetch()) ?? fetch;
  const response = await send(url, {
    method: options.jsonBody === undefined ? "GET" : "POST",
    redirect: "manual",
    signal: options.signal,
    headers: requestHeaders(options),
    ...(options.jsonBody === undefined ? {} : { body: options.jsonBody }),
  });
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let cut = false;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = options.maxBytes - kept;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      kept += room;
      cut = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    kept += value.byteLength;
  }
  const location = response.headers.get("location");
  return { status: response.status, ...(location ? { location } : {}), contentType: response.headers.get("content-type") ?? "", body: join(chunks, kept), cut };
}

function join(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
