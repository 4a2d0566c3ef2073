/**
 * Connection failures as each runtime's `fetch` reports them (the shapes
 * below were recorded from Node 20–24 with undici, Bun 1.4 and Deno 2.9),
 * named the same everywhere, and only the ones a retry can mend marked transient.
 */
import { describe, expect, test } from "bun:test";
import { networkFailure } from "../../src/models/network-failure.ts";

const coded = (message: string, code: string, cause?: unknown) => Object.assign(new Error(message, cause ? { cause } : undefined), { code });
const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause });
/** The provider packages wrap what fetch threw. */
const wrapped = (cause: unknown) => Object.assign(new Error(`Cannot connect to API: ${(cause as Error).message}`, { cause }), { isRetryable: true });

describe("networkFailure", () => {
  test.each([
    ["a refusing proxy, undici", fetchFailed(new Error("Request was cancelled.", { cause: coded("Proxy response (403) !== 200 when HTTP Tunneling", "UND_ERR_ABORTED") })), "the proxy refused the connection with HTTP 403", false],
    ["a refusing proxy, Bun", coded("Proxy refused to open a tunnel: 407 Proxy Authentication Required", "ERR_PROXY_TUNNEL"), "the proxy refused the connection with HTTP 407", false],
    ["a refusing proxy, Deno", fetchFailed(new Error("error sending request for url (https://h/): client error (Connect): unsuccessful tunnel")), "the proxy refused the connection", false],
    ["a refused connection, Node", fetchFailed(coded("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED")), "connection refused", true],
    ["a refused connection, Bun", Object.assign(new TypeError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?"), { code: "ECONNREFUSED" }), "connection refused", true],
    ["a refused connection, Deno", fetchFailed(new Error("error sending request for url (http://h/): client error (Connect): tcp connect error: Connection refused (os error 111)")), "connection refused", true],
    ["no such host, Node", fetchFailed(coded("getaddrinfo ENOTFOUND h.invalid", "ENOTFOUND")), "host not found", false],
    ["no such host, Bun", Object.assign(new TypeError("getaddrinfo ENOTFOUND h.invalid"), { code: "ENOTFOUND" }), "host not found", false],
    ["no such host, Deno", fetchFailed(new Error("client error (Connect): dns error: failed to lookup address information: Name or service not known")), "host not found", false],
    ["a name lookup failing for now", fetchFailed(coded("getaddrinfo EAI_AGAIN h", "EAI_AGAIN")), "host not found (the name lookup failed for now)", true],
    ["a reset", fetchFailed(coded("read ECONNRESET", "ECONNRESET")), "connection reset", true],
    ["a certificate", fetchFailed(coded("self-signed certificate", "DEPTH_ZERO_SELF_SIGNED_CERT")), "TLS error: DEPTH_ZERO_SELF_SIGNED_CERT", false],
  ])("%s", (_name, error, text, transient) => {
    expect(networkFailure(error)).toEqual({ text, transient });
    expect(networkFailure(wrapped(error))).toEqual({ text, transient });
  });

  test("an HTTP error or a loop of causes is no connection failure", () => {
    expect(networkFailure(Object.assign(new Error("Overloaded"), { statusCode: 529 }))).toBeUndefined();
    const loop = new Error("loop") as Error & { cause?: unknown };
    loop.cause = loop;
    expect(networkFailure(loop)).toBeUndefined();
    expect(networkFailure("fetch failed")).toBeUndefined();
  });
});
