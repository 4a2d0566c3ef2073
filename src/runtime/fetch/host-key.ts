/**
 * One spelling of a host for every check that compares hosts: permission
 * rules, "always" answers, `fetch.allowHosts` and the redirect check alike.
 * A name is read by the URL parser (lowercase, IDNA to ASCII, IPv4 and IPv6
 * in their one canonical form) and loses its trailing dots; the port is the
 * one connected to, the scheme's default made explicit. Without this, a
 * rule for `evil.example` would not meet `EVIL.example.`, `bücher.example`
 * would not meet `xn--bcher-kva.example`, and `port.example:443` would not
 * meet `https://port.example/`.
 *
 * An IPv6 address that carries an IPv4 one is compared with it in the
 * direction that fails closed. The IPv4-mapped form (`[::ffff:a.b.c.d]`, in
 * any spelling) is that IPv4 host itself, so it is read as the dotted IPv4
 * everywhere. The other forms (IPv4-compatible, IPv4-translated, NAT64,
 * 6to4) are other addresses: a deny rule, an `ask` rule or an "always
 * reject" answer on the IPv4 address covers them (and one on them covers
 * the IPv4 address), but an allowance on one never reaches the other.
 * @module
 */
import { carriedIPv4 } from "./public-address.ts";

/** A host as compared: `name` normalised, `port` when one is named, `subdomains` for a `*.domain` pattern. */
export interface HostPattern {
  name: string;
  port?: string;
  /** `*.domain`: covers names under `domain`, not `domain` itself. */
  subdomains: boolean;
  /** The IPv4 address an IPv6 `name` is built around without being it (NAT64, 6to4, …): matched by refusals only. */
  carries?: string;
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** The port a URL connects to: its own, or its scheme's default. */
export function effectivePort(url: URL): string {
  return url.port || DEFAULT_PORTS[url.protocol] || "";
}

/** A hostname as the URL parser gives it, read as compared: no trailing dots, an IPv4-mapped address as its IPv4. */
function comparedName(hostname: string): { name: string; carries?: string } {
  const name = hostname.replace(/\.+$/, "");
  const carried = name.startsWith("[") ? carriedIPv4(name) : undefined;
  if (!carried) return { name };
  return carried.same ? { name: carried.ipv4 } : { name, carries: carried.ipv4 };
}

/**
 * Reads `name`, `name:port`, `[v6]:port` or (with `wildcard`) `*.domain` as
 * written in settings or carried by a tool call; undefined when it is not one.
 */
export function readHostPattern(text: string, options: { wildcard?: boolean } = {}): HostPattern | undefined {
  const subdomains = options.wildcard === true && text.startsWith("*.");
  const rest = subdomains ? text.slice(2) : text;
  if (!rest || /[/?#@\s\\*]/.test(rest)) return undefined;
  // The URL parser drops a default port; the entry's own digits decide.
  const port = /^(?:\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(rest)?.[1];
  if (port !== undefined && Number(port) > 65535) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://${rest}`).hostname;
  } catch {
    return undefined;
  }
  const { name, carries } = comparedName(hostname);
  if (!name) return undefined;
  return { name, ...(port !== undefined ? { port: String(Number(port)) } : {}), subdomains, ...(carries ? { carries } : {}) };
}

/** The host `url` reaches, its port made explicit. */
export function urlHost(url: URL): HostPattern {
  return { ...comparedName(url.hostname), port: effectivePort(url), subdomains: false };
}

/** A host as text: `name:port` (or `name`), `*.` in front of a subdomain pattern. */
export function hostText(host: HostPattern): string {
  return `${host.subdomains ? "*." : ""}${host.name}${host.port !== undefined ? `:${host.port}` : ""}`;
}

/** `url`'s host as the permission checks see it: normalised, with its port (`docs.example.com:443`). */
export function urlHostText(url: URL): string {
  return hostText(urlHost(url));
}

/**
 * Whether `pattern` covers `host`: the same name (or one under it, for `*.domain`) and the same port when the
 * pattern names one. A `refusing` pattern (deny, ask, reject) also covers by the IPv4 address either side carries.
 */
export function hostCovers(pattern: HostPattern, host: HostPattern, refusing = false): boolean {
  const named = pattern.subdomains ? host.name.endsWith(`.${pattern.name}`) : host.name === pattern.name || (refusing && sameCarried(pattern, host));
  return named && (pattern.port === undefined || pattern.port === host.port);
}

/** Whether two hosts are, or carry, the same IPv4 address (for refusals only: see the module comment). */
export function sameCarried(a: HostPattern, b: HostPattern): boolean {
  return (a.carries ?? a.name) === (b.carries ?? b.name);
}

/** Whether two URLs are the same origin: scheme, normalised name and effective port. */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && urlHostText(a) === urlHostText(b);
}
