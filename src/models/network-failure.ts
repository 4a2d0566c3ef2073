/**
 * What went wrong on the network under a failed model request, read from the
 * error chain each runtime's `fetch` produces (Node and undici: a TypeError
 * "fetch failed" caused by the system error; Bun: an error with a code;
 * Deno: a TypeError whose cause names the problem in words). The same
 * answer on every runtime decides both the message and whether a retry can help.
 * @module
 */

/** A failure to reach the server (or its proxy), named for a user. */
export interface NetworkFailure {
  /** Short words for the message: "connection refused", "the proxy refused the connection with HTTP 403". */
  text: string;
  /** Whether trying again later can succeed (a refused or dropped connection), or not (no such host, a refusing proxy, TLS). */
  transient: boolean;
}

/** Names a connection failure in `error` or its causes; undefined when it is not one. */
export function networkFailure(error: unknown): NetworkFailure | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === "object" && !seen.has(current)) {
    seen.add(current);
    const found = classify(current as Record<string, unknown>);
    if (found) return found;
    current = (current as Record<string, unknown>).cause;
  }
  return undefined;
}

function classify(record: Record<string, unknown>): NetworkFailure | undefined {
  const code = typeof record.code === "string" ? record.code : "";
  const text = typeof record.message === "string" ? record.message : "";
  // A proxy that answers CONNECT with anything but 200: undici says "Proxy response (403) !== 200 when
  // HTTP Tunneling", Bun "Proxy refused to open a tunnel: 403 …" (ERR_PROXY_TUNNEL), Deno "unsuccessful tunnel".
  const tunnel = /Proxy response \((\d{3})\)|Proxy refused to open a tunnel:?\s*(\d{3})?|unsuccessful tunnel/i.exec(text);
  if (tunnel || code === "ERR_PROXY_TUNNEL") {
    const status = tunnel?.[1] ?? tunnel?.[2];
    return { text: `the proxy refused the connection${status ? ` with HTTP ${status}` : ""}`, transient: false };
  }
  if (/ECONNREFUSED|ConnectionRefused/i.test(code) || /connection refused/i.test(text)) return { text: "connection refused", transient: true };
  if (code === "EAI_AGAIN") return { text: "host not found (the name lookup failed for now)", transient: true };
  if (code === "ENOTFOUND" || /dns error|failed to lookup|getaddrinfo/i.test(text)) return { text: "host not found", transient: false };
  if (/ETIMEDOUT|CONNECT_TIMEOUT|Timeout/i.test(code)) return { text: "connection timed out", transient: true };
  if (/ECONNRESET|ConnectionClosed|UND_ERR_SOCKET|EPIPE/i.test(code) || /connection reset/i.test(text)) return { text: "connection reset", transient: true };
  if (/CERT|TLS|SSL/i.test(code)) return { text: `TLS error: ${code}`, transient: false };
  if (/FailedToOpenSocket/.test(code)) return { text: "could not open a socket", transient: true };
  if (/bad port|port \d+ (?:is|are) blocked/i.test(text)) return { text: "fetch refuses this port", transient: false };
  return undefined;
}
