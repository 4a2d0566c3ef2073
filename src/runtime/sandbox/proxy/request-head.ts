/**
 * Reading the head of one request a sandboxed command sends to the
 * filtering proxy: `CONNECT host:port HTTP/1.1` (a tunnel, for https and any
 * other TCP) or an absolute-form request for plain http
 * (`GET http://host:port/path HTTP/1.1`). Strict on purpose: anything that
 * is not plainly one of these — userinfo in the target, a bare path, a
 * folded or control-character header, a head that does not end within the
 * bound — is refused with a status and a reason, never guessed at.
 * @module
 */
import { hostText, readHostPattern, urlHost, type HostPattern } from "../../fetch/host-key.ts";

/** The most bytes a request head may take, request line and headers together. */
export const MAX_HEAD_BYTES = 16 * 1024;

/** A request the proxy may carry out (if its host is allowed). */
export type ProxyRequest =
  | { kind: "connect"; host: HostPattern; target: string }
  /** Plain http: `head` is what to send to the origin server (origin-form, `Connection: close`). */
  | { kind: "forward"; host: HostPattern; target: string; head: string };

/** A request the proxy refuses before looking at its host. */
export interface HeadRefusal {
  status: 400 | 431;
  reason: string;
}

/** Where the head ends (the index after its blank line), or -1 while it has not ended. */
export function headEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) return i + 1;
  }
  return -1;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII only: a target carries no spaces, controls or bytes beyond ASCII. */
const TARGET = /^[\x21-\x7e]+$/;
/** A header value: visible characters, spaces and tabs (bytes beyond ASCII as the client sent them). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Headers that belong to one connection (the client's to the proxy), not to the request. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade", "host"]);

/** The request in `head` (the bytes up to and including the blank line), or why it is refused. */
export function parseRequestHead(head: Uint8Array): ProxyRequest | HeadRefusal {
  if (head.length > MAX_HEAD_BYTES) return { status: 431, reason: `the request head is longer than ${MAX_HEAD_BYTES} bytes` };
  // latin1: one character per byte, so no byte is lost or merged on the way back out.
  const text = new TextDecoder("latin1").decode(head);
  if (!text.endsWith("\r\n\r\n")) return { status: 400, reason: "the request head does not end with an empty line" };
  const lines = text.slice(0, -4).split("\r\n");
  const parts = lines[0]!.split(" ");
  if (parts.length !== 3) return { status: 400, reason: "the request line is not `METHOD target HTTP/1.x`" };
  const [method, target, version] = parts as [string, string, string];
  if (!TOKEN.test(method)) return { status: 400, reason: "the method is not a token" };
  if (version !== "HTTP/1.1" && version !== "HTTP/1.0") return { status: 400, reason: "only HTTP/1.0 and HTTP/1.1 requests are proxied" };
  if (!TARGET.test(target)) return { status: 400, reason: "the request target holds spaces, control characters or bytes beyond ASCII" };
  const fields: Array<[string, string]> = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    // A name must start the line: a folded continuation (leading space) or a nameless line is refused.
    if (!TOKEN.test(name)) return { status: 400, reason: "a header line is not `name: value`" };
    const value = line.slice(colon + 1).trim();
    if (!FIELD_VALUE.test(value)) return { status: 400, reason: `the ${name} header holds control characters` };
    fields.push([name, value]);
  }
  if (method === "CONNECT") return connectRequest(target);
  return forwardRequest(method, target, version, fields);
}

/** `host:port`, port required; a name, a dotted IPv4 address or a bracketed IPv6 address, nothing else. */
function connectRequest(target: string): ProxyRequest | HeadRefusal {
  if (!/^(?:\[[0-9A-Fa-f:.]+\]|[^:[\]]+):\d{1,5}$/.test(target)) return { status: 400, reason: "a CONNECT target must be host:port" };
  const host = readHostPattern(target);
  if (!host || host.port === undefined || host.port === "0") return { status: 400, reason: "a CONNECT target must be host:port" };
  return { kind: "connect", host, target };
}

/** `http://host[:port]/path`: sent on as `METHOD /path`, the headers kept but for this connection's own. */
function forwardRequest(method: string, target: string, version: string, fields: Array<[string, string]>): ProxyRequest | HeadRefusal {
  if (!/^http:\/\//i.test(target)) {
    return { status: 400, reason: /^https:\/\//i.test(target) ? "https is proxied with CONNECT only" : "only absolute http:// targets and CONNECT are proxied" };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { status: 400, reason: "the request target is not a URL" };
  }
  if (url.username || url.password || target.slice(7).split(/[/?#]/, 1)[0]!.includes("@")) return { status: 400, reason: "a request target may not carry credentials" };
  if (!url.hostname) return { status: 400, reason: "the request target names no host" };
  const host = urlHost(url);
  // The URL parser takes names the host rules never could (`a*b`): only a host as settings can name one goes on.
  if (!readHostPattern(hostText(host))) return { status: 400, reason: "the request target's host is not one sandbox.allowHosts could name" };
  if (host.port === "0") return { status: 400, reason: "port 0 cannot be reached" };
  const kept = fields.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())).map(([name, value]) => `${name}: ${value}\r\n`);
  // The origin closes after its answer: a next request comes on a new connection, read and checked anew.
  const head = `${method} ${url.pathname}${url.search} ${version}\r\nHost: ${url.host}\r\n${kept.join("")}Connection: close\r\n\r\n`;
  return { kind: "forward", host, target, head };
}

/** Whether `parsed` is a refusal. */
export function isRefusal(parsed: ProxyRequest | HeadRefusal): parsed is HeadRefusal {
  return "status" in parsed;
}
