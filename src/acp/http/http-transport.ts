/**
 * ACP over Streamable HTTP (POST plus server-sent events) through the SDK's
 * `AcpServer`. Each HTTP connection — from its `initialize` POST to its
 * DELETE, its idle deadline or shutdown — is served by `connectAgent`,
 * exactly like a stdio or WebSocket connection: same handlers, same
 * connection guard, same outbound redaction, same services and store.
 * @module
 */
import { connectAgent } from "../agent-app.ts";
import { IdleHttpConnections, type TrackedConnection } from "./http-idle-connections.ts";
import { AcpServer } from "./sdk-server.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { log } from "../../runtime/log.ts";

/** Limits the HTTP transport enforces per connection. */
export interface HttpTransportLimits {
  /** Outbound bytes one connection may hold for a client that is not reading. */
  maxBufferedBytes: number;
  /** A connection with no open stream, no request under way and no unanswered request is closed after this. */
  idleTimeoutMs: number;
}

/** The Streamable HTTP endpoint: requests in, responses (JSON or event streams) out. */
export interface HttpTransport {
  /** Handles one POST, GET or DELETE of the transport. */
  handle(request: Request): Promise<Response>;
  /** HTTP connections open now (or being opened). */
  open(): number;
  /** Open HTTP connections with no stream, request or unanswered request now. */
  idle(): number;
  /** Closes the connection idle the longest, as if its client had deleted it, if it has been idle `minIdleMs`. */
  evictIdlest(minIdleMs: number): boolean;
  /** How long until `evictIdlest(minIdleMs)` could close a connection; undefined when none is idle. */
  evictableInMs(minIdleMs: number): number | undefined;
  /** Closes every HTTP connection (its turns are cancelled and answered first). */
  close(): Promise<void>;
}

const CONNECTION_HEADER = "acp-connection-id";

// An SSE comment sent as an event stream opens: some servers (Bun's) send no headers before the first bytes
// of a body, so without it a client would not know its stream is open until the first message or keep-alive.
const STREAM_OPENED = new TextEncoder().encode(": open\n\n");

/**
 * An event stream's body, passed through with `STREAM_OPENED` first; `ended` is called once when it
 * finishes, fails or its reader cancels it (the client went away).
 */
function watchedEventStream(body: ReadableStream<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  // No buffering of its own: the SDK's event stream hands out a message only when its reader asks for one.
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(STREAM_OPENED);
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            ended();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          ended();
          controller.error(error);
        }
      },
      async cancel(reason) {
        ended();
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Creates the HTTP transport over the given services. */
export function createHttpTransport(services: AgentServices, limits: HttpTransportLimits): HttpTransport {
  const server = new AcpServer({ maxBufferedBytes: limits.maxBufferedBytes, createAgent: () => ({ connect: (stream) => connectAgent(services, stream as never) }) });
  const deleteConnection = (id: string) => server.handleRequest(new Request("http://acp-edge.internal/acp", { method: "DELETE", headers: { [CONNECTION_HEADER]: id } }));
  const idle = new IdleHttpConnections({
    idleMs: limits.idleTimeoutMs,
    close(id, idleMs, why) {
      log.info(`closed Streamable HTTP connection ${id.slice(0, 8)}… after ${Math.round(idleMs / 1000)} s idle${why === "evicted" ? " to make room for a new client" : ""}`);
      // Its sessions stay on disk for a later session/load, exactly as after the client's own DELETE.
      void deleteConnection(id).catch((error) => log.warn("closing an idle HTTP connection failed", error));
    },
  });

  /** Connects a new connection's agent, tracked from its first moment: busy while it owes its client an answer. */
  const connectTracked = (stream: unknown): { connection: TrackedConnection; connected: ReturnType<typeof connectAgent> } => {
    const connection = idle.opening();
    let busy: (() => void) | undefined;
    const onBusyChange = (now: boolean) => {
      busy?.();
      busy = now ? connection.hold() : undefined;
    };
    const connected = connectAgent(services, stream as never, undefined, { onBusyChange });
    void connected.closed.finally(() => idle.closed(connection));
    return { connection, connected };
  };

  // POSTs that may open a connection, counted from their arrival until the connection exists (or will not):
  // a capacity check made just before `handle` thus sees every connection under way.
  let arriving = 0;

  /** Serves a request without `Acp-Connection-Id`: an `initialize` opens a connection, anything else is refused. */
  const opening = async (request: Request): Promise<Response> => {
    let tracked: TrackedConnection | undefined;
    let counted = request.method === "POST";
    if (counted) arriving += 1;
    const arrived = () => {
      if (counted) arriving -= 1;
      counted = false;
    };
    const connect = (stream: unknown) => {
      arrived();
      const { connection, connected } = connectTracked(stream);
      tracked = connection;
      return connected;
    };
    const response = await server.handleRequest(request, { createAgent: () => ({ connect }) }).finally(arrived);
    const id = response.headers.get(CONNECTION_HEADER);
    if (tracked && id) idle.named(tracked, id);
    return response;
  };

  /** Serves a request of an open connection, which holds the connection while it (or its event stream) lasts. */
  const ongoing = async (request: Request, id: string): Promise<Response> => {
    const release = idle.get(id)?.hold() ?? (() => undefined);
    let response: Response;
    try {
      response = await server.handleRequest(request);
    } catch (error) {
      release();
      throw error;
    }
    if (request.method === "GET" && response.ok && response.body) {
      return new Response(watchedEventStream(response.body, release), { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    release();
    return response;
  };

  return {
    handle: (request) => {
      const id = request.headers.get(CONNECTION_HEADER);
      return id ? ongoing(request, id) : opening(request);
    },
    open: () => idle.size + arriving,
    idle: () => idle.idle,
    evictIdlest: (minIdleMs) => idle.evictIdlest(minIdleMs),
    evictableInMs: (minIdleMs) => idle.evictableInMs(minIdleMs),
    close: async () => {
      idle.clear();
      await server.close();
    },
  };
}
