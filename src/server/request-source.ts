/**
 * Where a request comes from, checked before anything else (the token
 * included): against DNS rebinding, a server bound to a loopback address
 * answers only requests addressed to a loopback name (a web page whose own
 * host name was made to resolve to 127.0.0.1 sends that name in `Host`); and
 * a request a web page sends (it carries `Origin`) is answered only when the
 * page is the server's own or its origin was allowed.
 * @module
 */
import { canonicalOrigin } from "../config/web-origin.ts";
import { excerpt, jsonError } from "./http-errors.ts";

/** Who may talk to the server. */
export interface RequestSourcePolicy {
  /** `Host` must be `localhost`, a `127.x.x.x` address or `[::1]`, with any port (loopback binds). */
  loopbackHostOnly: boolean;
  /** Web origins allowed besides the server's own, canonical (`http://localhost:3000`). */
  allowedOrigins: ReadonlySet<string>;
}

/** Whether `Host` names this machine's loopback interface — `localhost`, `127.x.x.x`, `[::1]`, any port — as written. */
function isLoopbackHost(host: string): boolean {
  // Name and port only: no user info, path or whitespace for a parser to read differently.
  const written = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/.exec(host)?.[1]?.toLowerCase();
  if (written === undefined) return false;
  let name: string;
  try {
    name = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  // Only the canonical spelling: `127.1` or `127.0.0.1.` reach the same address, but no client needs them.
  return name === written && (name === "localhost" || name === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name));
}

/** Whether `origin` is the origin the request was addressed to: same host and port, as `Host` names them. */
function isOwnOrigin(origin: string, host: string): boolean {
  const scheme = new URL(origin).protocol;
  try {
    return new URL(`${scheme}//${host}`).host === new URL(origin).host;
  } catch {
    return false;
  }
}

/** The 403 for a request from a source the policy does not accept, or undefined to go on. */
export function sourceRefusal(request: Request, policy: RequestSourcePolicy): Response | undefined {
  const host = request.headers.get("host") ?? "";
  if (policy.loopbackHostOnly && !isLoopbackHost(host)) {
    return jsonError(403, "host_not_allowed", `this server answers requests addressed to localhost, 127.0.0.1 or [::1] only, not ${JSON.stringify(excerpt(host, 64))}`);
  }
  const origin = request.headers.get("origin");
  if (origin === null) return undefined;
  const canonical = canonicalOrigin(origin);
  if (canonical !== undefined && (policy.allowedOrigins.has(canonical) || isOwnOrigin(canonical, host))) return undefined;
  return jsonError(403, "origin_not_allowed", `web pages from ${JSON.stringify(excerpt(origin, 64))} may not use this server; allow their origin with --allow-origin`);
}

/** The policy for a server: the Host check on loopback binds, and the origins allowed (each checked). */
export function requestSourcePolicy(loopbackHostOnly: boolean, allowedOrigins: readonly string[]): RequestSourcePolicy {
  const canonical = new Set<string>();
  for (const origin of allowedOrigins) {
    const parsed = canonicalOrigin(origin);
    if (parsed === undefined) throw new Error(`allowed origin ${JSON.stringify(excerpt(origin, 64))} is not an origin like http://localhost:3000`);
    canonical.add(parsed);
  }
  return { loopbackHostOnly, allowedOrigins: canonical };
}
