/**
 * ACP over Streamable HTTP (POST plus server-sent events) through the SDK's
 * `AcpServer`. Each HTTP connection — from its `initialize` POST to its
 * DELETE or its shutdown — is served by `connectAgent`, exactly like a stdio
 * or WebSocket connection: same handlers, same connection guard, same
 * outbound redaction, same services and store.
 * @module
 */
import { connectAgent } from "./agent-app.ts";
import { AcpServer } from "./sdk-server.ts";
import type { AgentServices } from "../sessions/services.ts";

/** Limits the SDK's server enforces per HTTP connection. */
export interface HttpTransportLimits {
  /** Outbound bytes one connection may hold for a client that is not reading. */
  maxBufferedBytes: number;
}

/** The Streamable HTTP endpoint: requests in, responses (JSON or event streams) out. */
export interface HttpTransport {
  /** Handles one POST, GET or DELETE of the transport. */
  handle(request: Request): Promise<Response>;
  /** HTTP connections open now. */
  open(): number;
  /** Closes every HTTP connection (its turns are cancelled and answered first). */
  close(): Promise<void>;
}

/** Creates the HTTP transport over the given services. */
export function createHttpTransport(services: AgentServices, limits: HttpTransportLimits): HttpTransport {
  let open = 0;
  const server = new AcpServer({
    maxBufferedBytes: limits.maxBufferedBytes,
    createAgent: () => ({
      connect(stream) {
        open += 1;
        const connection = connectAgent(services, stream as never);
        void connection.closed.finally(() => (open -= 1));
        return connection;
      },
    }),
  });
  return {
    handle: (request) => server.handleRequest(request),
    open: () => open,
    close: () => server.close(),
  };
}
