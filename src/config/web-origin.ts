/**
 * Browser origins as `agent serve` allows them (`--allow-origin`, settings
 * `serve.allowedOrigins`): `http` or `https`, a host, an optional port, and
 * nothing else — compared in the form browsers send them in `Origin`.
 * @module
 */

/** The origin in canonical form (`http://localhost:3000`), or undefined when `text` is not exactly an origin. */
export function canonicalOrigin(text: string): string | undefined {
  // Scheme and authority alone (a trailing slash is tolerated): no user, path, query or fragment.
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.hostname === "" ? undefined : url.origin;
}
