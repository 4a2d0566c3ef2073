/**
 * The Hono app of `agent serve`, every route of it: health, readiness,
 * capabilities, the sessions REST API, and `/acp` (WebSocket or Streamable
 * HTTP) and `/v1/session/{ref}/apc` (WebSocket). Every request's source
 * (`Host`, `Origin`) is checked first; upgrade requests then meet the
 * handshake middleware, whatever their path.
 * @module
 */
import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import type { HttpTransport } from "../acp/http/http-transport.ts";
import type { AgentServices } from "../sessions/services.ts";
import { PACKAGE_VERSION } from "../config/version.ts";
import type { WebSocketUpgrader } from "../runtime/websocket/websocket-types.ts";
import { acpHttpHandler } from "./acp-http.ts";
import { BEARER_PREFIX, isAuthorizedByHeader, SUBPROTOCOL } from "./bearer.ts";
import { handshake, isUpgradeRequest, type HandshakeVariables } from "./handshake.ts";
import { json, jsonError, unauthorized } from "./http-errors.ts";
import { consoleRoutes } from "./console-routes.ts";
import type { ServeLimits } from "./limits.ts";
import { sessionRoutes } from "./rest-sessions.ts";
import { sourceRefusal, type RequestSourcePolicy } from "./request-source.ts";
import type { ServerState } from "./server-state.ts";
import { serveSocket } from "./socket-connection.ts";
import { log } from "../runtime/log.ts";

/** Everything the app is built from. */
export interface ServerAppOptions {
  services: AgentServices;
  token: string;
  limits: ServeLimits;
  state: ServerState;
  upgrader: WebSocketUpgrader;
  http: HttpTransport;
  source: RequestSourcePolicy;
}

/** Builds the app; `createEdgeApp` builds its parts. */
export function createServerApp({ services, token, limits, state, upgrader, http, source }: ServerAppOptions): Hono<{ Variables: HandshakeVariables }> {
  const app = new Hono<{ Variables: HandshakeVariables }>();
  // A foreign Host or Origin is refused before anything else; an upgrade's refusal must go through the
  // upgrader, so the handshake checks the source of those itself, first.
  app.use("*", async (c, next) => (isUpgradeRequest(c.req.raw) ? await next() : (sourceRefusal(c.req.raw, source) ?? (await next()))));
  // Only the server's own page and the allowed origins get this far with an `Origin`, so CORS answers those
  // (still with the token needed, like everyone else). An upgrade's answer is the runtime's own (a 101 cannot
  // take new headers), so CORS leaves those alone.
  const withCors = cors({ origin: (origin) => origin, allowHeaders: ["Authorization", "Content-Type", "Acp-Connection-Id", "Acp-Session-Id"], exposeHeaders: ["Acp-Connection-Id", "Acp-Session-Id"], allowMethods: ["GET", "POST", "DELETE", "OPTIONS"], maxAge: 600 });
  app.use("*", async (c, next) => (isUpgradeRequest(c.req.raw) ? await next() : await withCors(c, next)));
  app.use("*", handshake({ token, store: services.store, limits, state, source }, upgrader));

  // The place the handshake holds for the upgrade is given back once the socket is counted as a connection,
  // or when the runtime reports the upgrade abandoned (the handshake gives it back on a refusal or a throw).
  const accept = (c: Context<{ Variables: HandshakeVariables }>) => {
    const releasePlace = c.get("releasePlace");
    return upgrader.accept(
      c,
      (socket) => {
        try {
          // Let in before the server began to stop but opened after: shutdown has already closed the connections
          // it knew of and is letting go of the sessions, so this one is not served.
          if (state.draining) socket.close(1001, "the server is shutting down");
          else serveSocket(services, limits, state, socket, c.get("socketRoute"));
        } finally {
          releasePlace();
        }
      },
      releasePlace,
    );
  };
  const onlyUpgrades = (c: Context<{ Variables: HandshakeVariables }>) => (isUpgradeRequest(c.req.raw) ? accept(c) : undefined);

  app.get("/healthz", () => json({ status: "ok" }));
  app.get("/readyz", () => (state.draining ? jsonError(503, "server_stopping", "the server is shutting down") : json({ status: "ready" })));

  const overHttp = acpHttpHandler({ token, limits, state, transport: http });
  app.on(["GET", "POST", "DELETE"], "/acp", async (c) => (await onlyUpgrades(c)) ?? (await overHttp(c, async () => undefined)));
  app.get("/v1/session/:ref/apc", async (c, next) => (await onlyUpgrades(c)) ?? (await next()));

  app.use("/v1/*", async (c, next) => (isAuthorizedByHeader(c.req.raw, token) ? await next() : unauthorized()));

  app.get("/v1/capabilities", () =>
    json({
      agent: { name: "acp-edge", version: PACKAGE_VERSION },
      protocol: "ACP",
      protocolVersion: 1,
      subprotocol: SUBPROTOCOL,
      auth: { scheme: "Bearer", header: "Authorization", subprotocolPrefix: BEARER_PREFIX },
      transports: {
        websocket: { routes: ["/acp", "/v1/session/{ref}/apc"], subprotocol: SUBPROTOCOL },
        http: { route: "/acp", kind: "streamable-http", auth: "Authorization header" },
      },
      routes: {
        acp: "/acp",
        sessionAttach: "/v1/session/{ref}/apc",
        sessions: "/v1/sessions",
        health: "/healthz",
        ready: "/readyz",
      },
      limits: {
        maxMessageBytes: limits.maxMessageBytes,
        maxBufferedBytes: limits.maxBufferedBytes,
        pingIntervalMs: limits.pingIntervalMs,
        maxConnections: limits.maxConnections,
        maxClientsPerSession: limits.maxClientsPerSession,
        maxAttachedSessions: limits.maxAttachedSessions,
        httpIdleTimeoutMs: limits.httpIdleTimeoutMs,
        httpIdleEvictMs: limits.httpIdleEvictMs,
        maxRestBodyBytes: limits.maxRestBodyBytes,
      },
      connections: { open: state.openConnections(), http: http.open(), httpIdle: http.idle(), attachedSessions: state.attachedSessions().size },
    }),
  );
  app.route("/v1/sessions", sessionRoutes(services, state, limits));
  app.route("/", consoleRoutes(services, state, token));
  app.notFound(() => jsonError(404, "route_not_found", "route not found"));
  // What failed inside is for the log, not the client: its message may quote the request or name local paths.
  app.onError((error) => {
    log.warn(`${error instanceof Error ? error.name : "error"} while answering a request`, error);
    return jsonError(500, "internal_error", "internal error; the server log has the details");
  });
  return app;
}
