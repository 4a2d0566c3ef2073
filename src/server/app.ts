/**
 * The Hono app of `agent serve`: health, readiness, capabilities and the
 * sessions REST API. WebSocket upgrades are decided by `decideUpgrade` (the
 * runtime adapter calls it before completing the handshake).
 * @module
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import type { AgentServices } from "../sessions/services.ts";
import { PACKAGE_VERSION } from "../config/version.ts";
import { BEARER_PREFIX, isAuthorized, SUBPROTOCOL } from "./bearer.ts";
import { json, jsonError } from "./http-errors.ts";
import { consoleRoutes } from "./console-routes.ts";
import type { ServeLimits } from "./limits.ts";
import { sessionRoutes } from "./rest-sessions.ts";
import type { ServerState } from "./server-state.ts";

export interface ServerAppOptions {
  services: AgentServices;
  token: string;
  limits: ServeLimits;
  state: ServerState;
}

export function createServerApp({ services, token, limits, state }: ServerAppOptions): Hono {
  const app = new Hono();
  // Browsers may call from other origins, but only with the token, like everyone else.
  app.use("*", cors({ origin: (origin) => origin, allowHeaders: ["Authorization", "Content-Type"], allowMethods: ["GET", "POST", "DELETE", "OPTIONS"], maxAge: 600 }));

  app.get("/healthz", () => json({ status: "ok" }));
  app.get("/readyz", () => (state.draining ? jsonError(503, "server_stopping", "the server is shutting down") : json({ status: "ready" })));

  app.use("/v1/*", async (c, next) => {
    if (!isAuthorized(c.req.raw, token)) {
      return jsonError(401, "unauthorized", "missing or invalid bearer token", { "www-authenticate": 'Bearer realm="acp-edge"' });
    }
    await next();
  });

  app.get("/v1/capabilities", () =>
    json({
      agent: { name: "acp-edge", version: PACKAGE_VERSION },
      protocol: "ACP",
      protocolVersion: 1,
      subprotocol: SUBPROTOCOL,
      auth: { scheme: "Bearer", header: "Authorization", subprotocolPrefix: BEARER_PREFIX },
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
      },
      connections: { open: state.connections.size, attachedSessions: state.attachedSessions().size },
    }),
  );
  app.route("/v1/sessions", sessionRoutes(services, state));
  app.route("/", consoleRoutes(services, state, token));
  app.notFound(() => jsonError(404, "route_not_found", "route not found"));
  app.onError((error) => jsonError(500, "internal_error", error instanceof Error ? error.message : "internal error"));
  return app;
}
