/**
 * `/acp` for clients without a WebSocket: ACP over Streamable HTTP, behind
 * the bearer header (401 without it). A POST body larger than the message
 * limit is refused with 413 before any of it is parsed (and before more of
 * it than the limit is read); a new connection (`initialize` without
 * `Acp-Connection-Id`) counts against the same connection capacity as
 * WebSockets and is refused while shutting down.
 * @module
 */
import type { Handler } from "hono";
import type { HttpTransport } from "../acp/http/http-transport.ts";
import { isAuthorizedByHeader } from "./bearer.ts";
import { readBoundedBody } from "./bounded-body.ts";
import { jsonError, unauthorized } from "./http-errors.ts";
import type { ServeLimits } from "./limits.ts";
import type { ServerState } from "./server-state.ts";

/** What the HTTP route needs. */
export interface AcpHttpContext {
  token: string;
  limits: ServeLimits;
  state: ServerState;
  transport: HttpTransport;
}

/** The handler of GET, POST and DELETE on `/acp` (WebSocket upgrades are routed before it). */
export function acpHttpHandler({ token, limits, state, transport }: AcpHttpContext): Handler {
  return async (c) => {
    const request = c.req.raw;
    if (!isAuthorizedByHeader(request, token)) return unauthorized();
    if (request.method !== "POST") return await transport.handle(request);
    const body = await readBoundedBody(request, limits.maxMessageBytes);
    if (!body.ok) {
      return body.reason === "too_large"
        ? jsonError(413, "message_too_large", `message exceeds ${limits.maxMessageBytes} bytes`)
        : jsonError(400, "unreadable_body", "the request body could not be read");
    }
    if (!request.headers.get("acp-connection-id")) {
      if (state.draining) return jsonError(503, "server_stopping", "the server is shutting down");
      const full = state.admit(limits);
      if (full) return full;
    }
    return await transport.handle(new Request(request.url, { method: "POST", headers: request.headers, body: body.bytes, signal: request.signal }));
  };
}
