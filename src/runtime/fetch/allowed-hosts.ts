/**
 * The user's `fetch.allowHosts`: hosts the `fetch` tool may reach even when
 * they resolve to addresses that are not public. An entry is `host` (any
 * port) or `host:port`; IPv6 hosts in brackets (`[::1]:8080`).
 * @module
 */

interface HostEntry {
  hostname: string;
  port?: string;
}

/** An entry as written, or undefined when it is not a host with an optional port. */
export function readHostEntry(text: string): HostEntry | undefined {
  if (!text || /[/?#@\s\\]/.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${text}`);
  } catch {
    return undefined;
  }
  // The URL parser drops a default port; the entry's own digits decide.
  const port = /^(?:\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(text)?.[1];
  if (port !== undefined && Number(port) > 65535) return undefined;
  return { hostname: url.hostname, ...(port !== undefined ? { port: String(Number(port)) } : {}) };
}

/** The port a URL connects to (its own or the scheme's default). */
export function effectivePort(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/** Whether `url`'s host is one of `entries` (entries that cannot be read allow nothing). */
export function hostAllowed(url: URL, entries: readonly string[]): boolean {
  return entries.some((text) => {
    const entry = readHostEntry(text);
    return entry !== undefined && entry.hostname === url.hostname && (entry.port === undefined || entry.port === effectivePort(url));
  });
}
