/**
 * One spelling of a host for every check that compares hosts: permission
 * rules, "always" answers, `fetch.allowHosts` and the redirect check alike.
 * A name is read by the URL parser (lowercase, IDNA to ASCII, IPv4 and IPv6
 * in their one canonical form) and loses its trailing dots; the port is the
 * one connected to, the scheme's default made explicit. Without this, a
 * rule for `evil.example` would not meet `EVIL.example.`, `bücher.example`
 * would not meet `xn--bcher-kva.example`, and `port.example:443` would not
 * meet `https://port.example/`.
 * @module
 */

/** A host as compared: `name` normalised, `port` when one is named, `subdomains` for a `*.domain` pattern. */
export interface HostPattern {
  name: string;
  port?: string;
  /** `*.domain`: covers names under `domain`, not `domain` itself. */
  subdomains: boolean;
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** The port a URL connects to: its own, or its scheme's default. */
export function effectivePort(url: URL): string {
  return url.port || DEFAULT_PORTS[url.protocol] || "";
}

/** A name without the trailing dots that name the same host. */
function withoutTrailingDots(name: string): string {
  return name.replace(/\.+$/, "");
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
  const name = withoutTrailingDots(hostname);
  if (!name) return undefined;
  return { name, ...(port !== undefined ? { port: String(Number(port)) } : {}), subdomains };
}

/** The host `url` reaches, its port made explicit. */
export function urlHost(url: URL): HostPattern {
  return { name: withoutTrailingDots(url.hostname), port: effectivePort(url), subdomains: false };
}

/** A host as text: `name:port` (or `name`), `*.` in front of a subdomain pattern. */
export function hostText(host: HostPattern): string {
  return `${host.subdomains ? "*." : ""}${host.name}${host.port !== undefined ? `:${host.port}` : ""}`;
}

/** `url`'s host as the permission checks see it: normalised, with its port (`docs.example.com:443`). */
export function urlHostText(url: URL): string {
  return hostText(urlHost(url));
}

/** Whether `pattern` covers `host`: the same name (or one under it, for `*.domain`) and the same port when the pattern names one. */
export function hostCovers(pattern: HostPattern, host: HostPattern): boolean {
  const named = pattern.subdomains ? host.name.endsWith(`.${pattern.name}`) : host.name === pattern.name;
  return named && (pattern.port === undefined || pattern.port === host.port);
}

/** Whether two URLs are the same origin: scheme, normalised name and effective port. */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && urlHostText(a) === urlHostText(b);
}
