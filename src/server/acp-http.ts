/**
 * `/acp` for clients without a WebSocket: ACP over Streamable HTTP, behind
 * the bearer header (401 without it). A POST body larger than the message
 * limit is refused with 413 before any of it is parsed; a new connection
 * (`initialize` without `Acp-Connection-Id`) counts against the same
 * connection capacity as WebSockets and is refused while shutting down.
 * @module
 */
import type { Handler } from "hono";
import type { HttpTransport } from "../acp/http-transport.ts";
import { isAuthorizedByHeader } from "./bearer.ts";
import { jsonError } from "./http-errors.ts";
import type { ServeLimits } from "./limits.ts";
import type { ServerState } from "./server-state.ts";

/** What the HTTP route needs. */
export interface AcpHttpContext {
  token: string;
  limits: ServeLimits;
  state: ServerState;
  transport: HttpTransport;
}

const tooLarge = (limit: number) => jsonError(413, "message_too_large", `message exceeds ${limit} bytes`);

/** Reads a body up to `limit` bytes; undefined when it is larger. */
async function readBounded(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** The handler of GET, POST and DELETE on `/acp` (WebSocket upgrades are routed before it). */
export function acpHttpHandler({ token, limits, state, transport }: AcpHttpContext): Handler {
  return async (c) => {
    const request = c.req.raw;
    if (!isAuthorizedByHeader(request, token)) {
      return jsonError(401, "unauthorized", "missing or invalid bearer token", { "www-authenticate": 'Bearer realm="acp-edge"' });
    }
    if (request.method !== "POST") return await transport.handle(request);
    const body = await readBounded(request, limits.maxMessageBytes);
    if (!body) return tooLarge(limits.maxMessageBytes);
    if (!request.headers.get("acp-connection-id")) {
      if (state.draining) return jsonError(503, "server_stopping", "the server is shutting down");
      if (state.openConnections() >= limits.maxConnections) {
        return jsonError(503, "connection_capacity", `the server has reached its limit of ${limits.maxConnections} connections`, { "retry-after": "5" });
      }
    }
    return await transport.handle(new Request(request.url, { method: "POST", headers: request.headers, body, signal: request.signal }));
  };
}
