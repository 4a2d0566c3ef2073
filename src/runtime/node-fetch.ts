/**
 * Model requests on Node over `node:http`/`node:https` rather than the
 * global `fetch`. Node 20's `fetch` is undici: its HTTP client is compiled
 * on the first request (a cost the first prompt of a session cannot hide)
 * and each request builds a `Request`, several web streams and abort
 * signals. This covers what the provider packages ask of `fetch`: a GET or
 * POST with a string body, an abort signal, the status, the headers and a
 * streamed body (gzip, deflate and brotli decoded, as `fetch` does), with
 * undici's limits (10 s to connect, 300 s for the headers, 300 s of a
 * silent body, kept-alive connections trusted for 4 s). Anything else
 * (another body type, a redirect) is left to the global `fetch`. Failures
 * look like `fetch`'s: `TypeError("fetch failed")` with the system error as
 * its cause, and the signal's reason when it fires.
 * @module
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { constants, createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { abortReason } from "./abort-reason.ts";

// The limits undici's fetch applies: connecting, waiting for the response's headers, a silent body,
// and how long an unused kept-alive connection is trusted.
const CONNECT_TIMEOUT_MS = 10_000;
const HEADERS_TIMEOUT_MS = 300_000;
const BODY_IDLE_TIMEOUT_MS = 300_000;
const FREE_SOCKET_MS = 4_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A kept-alive connection idle longer than FREE_SOCKET_MS is closed (a peer gone silent would hang the next request). */
function idleLimited<T extends HttpAgent>(agent: T): T {
  const keep = (agent as unknown as { keepSocketAlive(socket: Socket): boolean }).keepSocketAlive.bind(agent);
  (agent as unknown as { keepSocketAlive(socket: Socket): boolean }).keepSocketAlive = (socket) => {
    const kept = keep(socket);
    socket.setTimeout(FREE_SOCKET_MS);
    return kept;
  };
  return agent;
}

const agents = { http: idleLimited(new HttpAgent({ keepAlive: true })), https: idleLimited(new HttpsAgent({ keepAlive: true })) };

type FetchInit = { method?: string; headers?: unknown; body?: unknown; signal?: AbortSignal | null };

/** A response's headers as `fetch` shows them: lower-case names in order, repeated values joined. */
class ResponseHeaders {
  readonly #map: Map<string, string>;
  constructor(raw: IncomingMessage["headers"]) {
    const names = Object.keys(raw).sort();
    this.#map = new Map();
    for (const name of names) {
      const value = raw[name];
      if (value !== undefined) this.#map.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
  }
  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.#map) callback(value, name);
  }
  entries(): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
  keys(): IterableIterator<string> {
    return this.#map.keys();
  }
  values(): IterableIterator<string> {
    return this.#map.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
}

/** The parts of a `Response` the provider packages read. */
class NodeResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: ResponseHeaders;
  readonly url: string;
  readonly redirected = false;
  readonly #body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(url: string, message: IncomingMessage, body: ReadableStream<Uint8Array> | null) {
    this.url = url;
    this.status = message.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
    this.statusText = message.statusMessage ?? "";
    this.headers = new ResponseHeaders(message.headers);
    this.#body = body;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#body;
  }
  get bodyUsed(): boolean {
    return this.#used;
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  async text(): Promise<string> {
    return new TextDecoder().decode(await this.#bytes());
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async #bytes(): Promise<Uint8Array> {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    if (!this.#body) return new Uint8Array(0);
    const parts: Uint8Array[] = [];
    for await (const part of this.#body as unknown as AsyncIterable<Uint8Array>) parts.push(part);
    return Buffer.concat(parts);
  }
}

// As lenient as fetch: an empty or cleanly cut compressed body decodes to what it holds.
const ZLIB = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
const BROTLI = { flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH };
const DECODERS: Record<string, () => NodeJS.ReadWriteStream & Readable> = {
  gzip: () => createGunzip(ZLIB),
  "x-gzip": () => createGunzip(ZLIB),
  deflate: () => createInflate(ZLIB),
  br: () => createBrotliDecompress(BROTLI),
};

/** The body decoded as `fetch` decodes it: every Content-Encoding, last applied first; an unknown one leaves it as sent. */
function decodedBody(message: IncomingMessage): Readable {
  const codings = String(message.headers["content-encoding"] ?? "")
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding !== "" && coding !== "identity")
    .reverse();
  if (codings.length === 0 || codings.some((coding) => !DECODERS[coding])) return message;
  let stream: Readable = message;
  for (const coding of codings) {
    const decoder = DECODERS[coding]!();
    const source = stream;
    // A broken connection breaks the decoded stream too, and a reader that stops early lets the connection go.
    source.on("error", (error) => decoder.destroy(error));
    if (source === message) message.on("aborted", () => decoder.destroy(Object.assign(new Error("aborted"), { code: "ECONNRESET" })));
    decoder.on("close", () => source.destroy());
    stream = source.pipe(decoder);
  }
  return stream;
}

/** Plain header records only; anything else (a `Headers`, pairs) tells the caller to use `fetch`. */
function plainHeaders(headers: unknown): Record<string, string> | undefined {
  if (headers === undefined || headers === null) return {};
  if (typeof headers !== "object" || Array.isArray(headers) || Object.getPrototypeOf(headers) !== Object.prototype) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") return undefined;
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** `fetch` for model requests on Node (see the module comment). */
export function nodeFetch(input: string | URL | Request, init: FetchInit = {}): Promise<Response> {
  const url = typeof input === "string" ? safeUrl(input) : input instanceof URL ? input : undefined;
  const headers = plainHeaders(init.headers);
  const method = (init.method ?? "GET").toUpperCase();
  const body = init.body ?? undefined;
  const simple = url && (url.protocol === "http:" || url.protocol === "https:") && headers && (method === "GET" || method === "POST") && (body === undefined || typeof body === "string");
  if (!simple) return fetch(input, init as RequestInit);
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const payload = body === undefined ? undefined : Buffer.from(body, "utf8");
    if (payload) headers["content-length"] = String(payload.byteLength);
    // Not deflate: servers differ on what it means, and a model's stream gains nothing from it.
    headers["accept-encoding"] ??= "gzip, br";
    const secure = url.protocol === "https:";
    const request = (secure ? httpsRequest : httpRequest)(url, { method, headers, agent: secure ? agents.https : agents.http });
    let answered = false;
    let stream: Readable | undefined;
    const fail = (error: Error) => {
      stream?.destroy(error);
      request.destroy(error);
    };
    const timedOut = (message: string, code: string) => fail(Object.assign(new Error(message), { code }));
    const connectTimer = setTimeout(() => timedOut(`could not connect to ${url.host} within ${CONNECT_TIMEOUT_MS / 1000} s`, "UND_ERR_CONNECT_TIMEOUT"), CONNECT_TIMEOUT_MS);
    const headersTimer = setTimeout(() => timedOut(`no answer from ${url.host} within ${HEADERS_TIMEOUT_MS / 1000} s`, "UND_ERR_HEADERS_TIMEOUT"), HEADERS_TIMEOUT_MS);
    request.on("socket", (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once(secure ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
    });
    request.setTimeout(BODY_IDLE_TIMEOUT_MS, () => timedOut(`no data from ${url.host} for ${BODY_IDLE_TIMEOUT_MS / 1000} s`, "UND_ERR_BODY_TIMEOUT"));
    const onAbort = () => {
      const error = abortReason(signal!) as Error;
      fail(error);
      if (!answered) reject(error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => {
      clearTimeout(connectTimer);
      clearTimeout(headersTimer);
      signal?.removeEventListener("abort", onAbort);
    };
    request.on("error", (error) => {
      if (answered) return;
      done();
      reject(new TypeError("fetch failed", { cause: error }));
    });
    request.on("response", (message) => {
      answered = true;
      clearTimeout(connectTimer);
      clearTimeout(headersTimer);
      if (REDIRECTS.has(message.statusCode ?? 0) && message.headers.location) {
        // Rare for a model endpoint: the runtime's fetch sends the request again and follows every redirect rule.
        message.destroy();
        done();
        resolve(fetch(input, init as RequestInit));
        return;
      }
      const empty = message.statusCode === 204 || message.statusCode === 304;
      if (empty) {
        message.resume();
        done();
      } else {
        stream = decodedBody(message);
        stream.on("close", done);
      }
      resolve(new NodeResponse(url.href, message, stream ? (Readable.toWeb(stream) as ReadableStream<Uint8Array>) : null) as unknown as Response);
    });
    request.end(payload);
  });
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
