/**
 * The filtering proxy of one session's sandboxed commands: an HTTP proxy in
 * the agent, the only way out of a sandbox's network namespace. It listens
 * on nothing: each connection a command makes to its sandbox's forwarder
 * arrives as one stream of that sandbox's carrier (see ../network/). A request is carried out only when its host:port is covered by
 * `sandbox.allowHosts` (see proxy-target.ts); anything else is answered 403
 * (or 400 for a request it cannot read) with the reason as the body, and
 * the proxy goes on serving. A tunnel, once open, carries whatever the
 * command sends to that one host.
 * @module
 */
import net from "node:net";
import type { Duplex } from "node:stream";
import { MAX_HEAD_BYTES, headEnd, isRefusal, parseRequestHead } from "./request-head.ts";
import { decideTarget, readAllowHosts, type CheckedAddress, type Resolver } from "./proxy-target.ts";

/** A running proxy. */
export interface FilteringProxy {
  /** Serves one connection of a sandbox (a stream of its carrier): one request, then refusal or relay. */
  serve(client: Duplex): void;
  /** Ends every open connection; later ones are refused. */
  close(): void;
}

export interface FilteringProxyOptions {
  /** `sandbox.allowHosts` as written in the settings. */
  allowHosts: readonly string[];
  /** For tests: a resolver instead of the system's. */
  resolve?: Resolver;
}

/** How long a client may take to send its request head, and an upstream to accept the connection. */
const HEAD_TIMEOUT_MS = 30_000;
const CONNECT_TIMEOUT_MS = 30_000;
/** How long a refused client may go on sending before the connection is dropped. */
const REFUSED_LINGER_MS = 5_000;
/** Connections open at once, over all the session's commands; more are refused (503) rather than piling up. */
const MAX_CONNECTIONS = 256;

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout" };

/** A proxy for `allowHosts`; it listens on nothing: the carriers hand it their streams. */
export function createFilteringProxy(options: FilteringProxyOptions): FilteringProxy {
  const allowed = readAllowHosts(options.allowHosts);
  const open = new Set<Duplex>();
  let closed = false;
  return {
    serve(client) {
      if (closed || open.size >= MAX_CONNECTIONS) {
        refuse(client, 503, closed ? "the session is closed" : "too many connections through the sandbox proxy at once");
        return;
      }
      open.add(client);
      client.on("close", () => open.delete(client));
      serveClient(client, allowed, options.resolve, open);
    },
    close() {
      closed = true;
      for (const connection of open) connection.destroy();
      open.clear();
    },
  };
}

/** Calls `then` after `ms` unless the stream closes first; returns the way to cancel it. */
function bound(stream: Duplex, ms: number, then: () => void): () => void {
  const timer = setTimeout(then, ms);
  const cancel = () => clearTimeout(timer);
  stream.once("close", cancel);
  return cancel;
}

/** Reads one request head from `client`, then refuses it or connects it to its host. */
function serveClient(client: Duplex, allowed: ReturnType<typeof readAllowHosts>, resolve: Resolver | undefined, open: Set<Duplex>): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const cancelTimeout = bound(client, HEAD_TIMEOUT_MS, () => stop(() => refuse(client, 400, "no complete request head in time")));
  client.on("error", () => client.destroy());
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    const bytes = Buffer.concat(chunks, size);
    const end = headEnd(bytes);
    if (end < 0) {
      if (size > MAX_HEAD_BYTES) stop(() => refuse(client, 431, `the request head is longer than ${MAX_HEAD_BYTES} bytes`));
      return;
    }
    stop(() => void carryOut(client, bytes.subarray(0, end), bytes.subarray(end), allowed, resolve, open));
  };
  /** No more reading here: what follows the head belongs to the tunnel (or to nobody). */
  const stop = (next: () => void) => {
    client.off("data", onData);
    client.off("end", onEnd);
    client.pause();
    cancelTimeout();
    next();
  };
  const onEnd = () => stop(() => refuse(client, 400, "the connection ended before a complete request head"));
  client.on("data", onData);
  client.on("end", onEnd);
}

async function carryOut(client: Duplex, head: Uint8Array, rest: Uint8Array, allowed: ReturnType<typeof readAllowHosts>, resolve: Resolver | undefined, open: Set<Duplex>): Promise<void> {
  const request = parseRequestHead(head);
  if (isRefusal(request)) return refuse(client, request.status, request.reason);
  const decision = await decideTarget(request.host, allowed, resolve);
  if (!decision.allowed) return refuse(client, decision.status, decision.reason);
  if (client.destroyed) return;
  let upstream: net.Socket;
  try {
    upstream = await connectFirst(decision.addresses, decision.port, open);
  } catch (error) {
    return refuse(client, error instanceof ConnectTimeout ? 504 : 502, `${request.target} could not be reached (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (client.destroyed) return void upstream.destroy();
  // A failure on either side, or either side going away, ends both; a clean end travels through the pipes
  // (each side's end ends the other's writing), so an answer is never cut short.
  const fail = () => {
    client.destroy();
    upstream.destroy();
  };
  upstream.on("error", fail);
  client.on("error", fail);
  client.on("close", () => upstream.destroy());
  upstream.on("close", () => {
    if (!client.writableEnded) client.destroy();
  });
  if (request.kind === "connect") client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
  else upstream.write(request.head, "latin1");
  if (rest.length > 0) upstream.write(rest);
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}

class ConnectTimeout extends Error {
  code = "ETIMEDOUT";
}

/** A connection to the first of the checked `addresses` that accepts one, tried in order. */
async function connectFirst(addresses: readonly CheckedAddress[], port: number, open: Set<Duplex>): Promise<net.Socket> {
  let last: unknown;
  for (const { address, family } of addresses) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const upstream = net.connect({ host: address, port, family, allowHalfOpen: true });
        open.add(upstream);
        upstream.on("close", () => open.delete(upstream));
        upstream.setTimeout(CONNECT_TIMEOUT_MS, () => {
          upstream.destroy();
          reject(new ConnectTimeout("no answer in time"));
        });
        upstream.once("error", (error) => {
          upstream.destroy();
          reject(error);
        });
        upstream.once("connect", () => {
          upstream.setTimeout(0);
          upstream.removeAllListeners("error");
          resolve(upstream);
        });
      });
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

/** Answers `status` with `reason` as a plain-text body and ends the connection. */
function refuse(client: Duplex, status: number, reason: string): void {
  if (client.destroyed || client.writableEnded) return;
  const body = `acp-edge sandbox proxy: ${reason}\n`;
  const head = `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  client.end(head + body);
  // What the client still sends is read and dropped until it ends its side (dropping unread bytes
  // could lose the answer), for a bounded time; both sides ended, the stream closes.
  client.on("data", () => {});
  client.once("end", () => {
    if (client.writableFinished) client.destroy();
    else client.once("finish", () => client.destroy());
  });
  bound(client, REFUSED_LINGER_MS, () => client.destroy());
  client.resume();
}
