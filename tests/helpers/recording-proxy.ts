/**
 * A small HTTP proxy on 127.0.0.1 for tests, speaking both forms clients use:
 * absolute-form requests (`POST http://host:port/path`, forwarded) and
 * `CONNECT host:port` tunnels. It resolves only the names it was given
 * (`hosts`), so a test can put a server behind a name nothing else can
 * reach; any other target is refused with 502. Every request that passed
 * is recorded. Only `node:*` modules, so Bun, Node and Deno can import it.
 * @module
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";

/** One request the proxy handled. */
export interface ProxiedRequest {
  /** `CONNECT` for a tunnel, else the forwarded request's method. */
  method: string;
  /** `host:port` the client asked for. */
  target: string;
  /** The forwarded request's path (none for a tunnel). */
  path?: string;
  /** The `Proxy-Authorization` header, when the client sent one. */
  authorization?: string;
  /** What the proxy answered: 200 for a tunnel it opened, the forwarded status, or its own refusal. */
  status: number;
}

/** Options of the proxy. */
export interface ProxyOptions {
  /** `name:port` (or `name`, any port) → the `host:port` the proxy connects to instead. */
  hosts: Record<string, string>;
  /** Refuse every request with this status, as a proxy that forbids the target does. */
  refuse?: number;
}

/** A running proxy. */
export interface RecordingProxy {
  /** `http://127.0.0.1:PORT` */
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

// Headers about the hop to the proxy, never passed on.
const HOP_HEADERS = new Set(["proxy-authorization", "proxy-connection", "connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade"]);

/** Starts the proxy on an ephemeral port. */
export async function startRecordingProxy(options: ProxyOptions): Promise<RecordingProxy> {
  const sockets = new Set<Socket>();
  const requests: ProxiedRequest[] = [];
  const resolveTarget = (target: string): string | undefined => {
    const name = target.replace(/:\d+$/, "").toLowerCase();
    return options.hosts[target.toLowerCase()] ?? options.hosts[name];
  };
  const record = (request: IncomingMessage, target: string, status: number, path?: string) =>
    requests.push({
      method: request.method ?? "",
      target,
      status,
      ...(path === undefined ? {} : { path }),
      ...(request.headers["proxy-authorization"] ? { authorization: request.headers["proxy-authorization"] } : {}),
    });

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let url: URL;
    try {
      url = new URL(request.url ?? "");
    } catch {
      // An origin-form request: someone talked to the proxy as if it were the server.
      record(request, "", 400);
      response.writeHead(400).end("proxy: absolute-form request expected");
      return;
    }
    const target = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
    const upstream = url.protocol === "http:" ? resolveTarget(target) : undefined;
    const refusal = options.refuse ?? (upstream ? undefined : 502);
    if (refusal !== undefined || !upstream) {
      record(request, target, refusal ?? 502, url.pathname);
      request.resume();
      response.writeHead(refusal ?? 502, { "content-type": "text/plain" }).end(`proxy: refused ${target}`);
      return;
    }
    const [host, port] = splitHostPort(upstream);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
    const forwarded = httpRequest({ host, port, method: request.method, path: `${url.pathname}${url.search}`, headers }, (answer) => {
      record(request, target, answer.statusCode ?? 0, url.pathname);
      const answerHeaders: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) answerHeaders[name] = value;
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders);
      response.flushHeaders();
      answer.on("data", (chunk: Buffer) => response.write(chunk));
      answer.on("end", () => response.end());
      answer.on("error", () => response.destroy());
    });
    forwarded.on("error", () => {
      if (!response.headersSent) {
        record(request, target, 502, url.pathname);
        response.writeHead(502).end("proxy: upstream unreachable");
      } else response.destroy();
    });
    // The client going away mid-stream ends the upstream request too.
    response.on("close", () => forwarded.destroy());
    request.pipe(forwarded);
  });

  server.on("connect", (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = request.url ?? "";
    const upstream = resolveTarget(target);
    client.on("error", () => client.destroy());
    const refusal = options.refuse ?? (upstream ? undefined : 502);
    if (refusal !== undefined || !upstream) {
      record(request, target, refusal ?? 502);
      client.end(`HTTP/1.1 ${refusal ?? 502} Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      return;
    }
    const [host, port] = splitHostPort(upstream);
    let established = false;
    const tunnel = connect(port, host, () => {
      established = true;
      record(request, target, 200);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) tunnel.write(head);
      tunnel.pipe(client);
      client.pipe(tunnel);
    });
    sockets.add(tunnel);
    tunnel.on("close", () => sockets.delete(tunnel));
    tunnel.on("error", () => {
      if (established) return void client.destroy();
      record(request, target, 502);
      client.end("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
    client.on("close", () => tunnel.destroy());
  });

  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("recording proxy: no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function splitHostPort(address: string): [string, number] {
  const at = address.lastIndexOf(":");
  return [address.slice(0, at), Number(address.slice(at + 1))];
}
