/**
 * The user's `fetch.allowHosts`: hosts the `fetch` tool may reach even when
 * they resolve to addresses that are not public. An entry is `host` (any
 * port) or `host:port`; IPv6 hosts in brackets (`[::1]:8080`). Entries and
 * URLs are compared in one normalised spelling (see host-key.ts).
 * @module
 */
import { hostCovers, readHostPattern, urlHost, type HostPattern } from "./host-key.ts";

/** An entry as written (`host` or `host:port`), normalised; undefined when it cannot be read. */
export function readHostEntry(text: string): HostPattern | undefined {
  return readHostPattern(text);
}

/** Whether `url`'s host is one of `entries` (entries that cannot be read allow nothing). */
export function hostAllowed(url: URL, entries: readonly string[]): boolean {
  const host = urlHost(url);
  return entries.some((text) => {
    const entry = readHostPattern(text);
    return entry !== undefined && hostCovers(entry, host);
  });
}
