/**
 * HTTP/1.1 requests written on a bare TCP socket, for what `fetch` will not
 * send: any `Host`, a `Content-Length` that lies, a chunked body of 100 MB
 * streamed until the server answers, a body that trickles in. The answer is
 * kept only in part (its head, the first bytes of its body, its length), so
 * a server that echoes a huge body cannot exhaust the test either.
 */
import { randomBytes } from "node:crypto";
import { connect } from "node:net";

export interface RawAnswer {
  /** 0 when the server closed or reset the connection without answering. */
  status: number;
  headers: Record<string, string>;
  /** The first 4 KiB of the answer's body. */
  body: string;
  /** The whole body's length in bytes. */
  bodyBytes: number;
  /** Body bytes the client had written when the answer was complete (or the socket ended). */
  sent: number;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** A body sent whole. */
  body?: string;
  /** A body of this many bytes, `{"cwd":"/aaa…"}`, written in 64 KiB pieces until the server answers. */
  streamBytes?: number;
  /** Frames the body as chunked (no Content-Length). */
  chunked?: boolean;
  /** The Content-Length to declare instead of the true one. */
  declaredLength?: number;
  /** Called with a `send` function after the head; the body is whatever it sends (then the end, if chunked). */
  trickle?: (send: (text: string) => Promise<boolean>) => Promise<void>;
}

/** Sends one request on a fresh connection and reads its answer. */
export function rawRequest(url: string, request: RawRequest): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(target.port), target.hostname);
    let head = "";
    let status = 0;
    const headers: Record<string, string> = {};
    let body = "";
    let bodyBytes = 0;
    let expected = Number.POSITIVE_INFINITY;
    let chunkedAnswer = false;
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ status, headers, body, bodyBytes, sent });
    };
    const take = (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (body.length < 4096) body += chunk.toString("latin1");
      if (bodyBytes >= expected || (chunkedAnswer && body.endsWith("0\r\n\r\n"))) finish();
    };
    socket.on("data", (data: Buffer) => {
      if (status) return take(data);
      head += data.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      const lines = head.slice(0, end).split("\r\n");
      status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0]!)?.[1] ?? -1);
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      if (headers["content-length"] !== undefined) expected = Number(headers["content-length"]);
      chunkedAnswer = /chunked/i.test(headers["transfer-encoding"] ?? "");
      // A switched protocol and "no content" have no HTTP body: the answer is complete.
      if (status === 101 || status === 204 || status === 304) return finish();
      take(Buffer.from(head.slice(end + 4), "latin1"));
    });
    socket.on("close", finish);
    socket.on("error", finish);
    const write = (bytes: Buffer): Promise<boolean> => {
      if (done) return Promise.resolve(false);
      sent += bytes.length;
      const framed = request.chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")]) : bytes;
      return new Promise((r) => (socket.write(framed) ? r(!done) : socket.once("drain", () => r(!done))));
    };
    socket.on("connect", async () => {
      const size = request.body !== undefined ? Buffer.byteLength(request.body) : (request.streamBytes ?? 0);
      const all: Record<string, string> = { Host: target.host, ...request.headers };
      if (request.chunked) all["Transfer-Encoding"] = "chunked";
      else if (request.trickle === undefined || request.declaredLength !== undefined) all["Content-Length"] = String(request.declaredLength ?? size);
      socket.write(`${request.method ?? "POST"} ${request.path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`);
      if (request.trickle) await request.trickle((text) => write(Buffer.from(text)));
      else if (request.body !== undefined) await write(Buffer.from(request.body));
      else if (request.streamBytes !== undefined) {
        const filler = Buffer.alloc(64 * 1024, "a");
        if (!(await write(Buffer.from('{"cwd":"/')))) return;
        while (!done && sent < request.streamBytes - 2) await write(filler.subarray(0, Math.min(filler.length, request.streamBytes - 2 - sent)));
        await write(Buffer.from('"}'));
      }
      if (request.chunked && !done) socket.write("0\r\n\r\n");
    });
  });
}

/** The headers of a WebSocket upgrade request offering `protocols`. */
export function upgradeHeaders(protocols: string[]): Record<string, string> {
  return {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Protocol": protocols.join(", "),
  };
}

/** The body's text with chunked framing removed (as far as it was kept). */
function unchunked(answer: RawAnswer): string {
  if (!/chunked/i.test(answer.headers["transfer-encoding"] ?? "")) return answer.body;
  let text = "";
  let rest = answer.body;
  for (;;) {
    const line = rest.indexOf("\r\n");
    const size = line < 0 ? 0 : parseInt(rest.slice(0, line), 16);
    if (!size) return text;
    text += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/** The JSON body of an answer, or undefined when it is not JSON. */
export function answerJson(answer: RawAnswer): any {
  try {
    return JSON.parse(Buffer.from(unchunked(answer), "latin1").toString("utf8"));
  } catch {
    return undefined;
  }
}
