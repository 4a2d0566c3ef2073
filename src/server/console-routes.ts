/**
 * The browser console: `GET /` serves the page, `/console/…` its style sheet
 * and script (embedded strings, so every bundle carries them), and
 * `/console/activity` tells the page which sessions run a turn and how many
 * clients each has. The page is public; everything about sessions needs the
 * bearer token.
 * @module
 */
import { Hono } from "hono";
import type { AgentServices } from "../sessions/services.ts";
import { isAuthorizedByHeader } from "./bearer.ts";
import { CONSOLE_CSS, CONSOLE_HTML, CONSOLE_JS } from "./console/assets.ts";
import { json, unauthorized } from "./http-errors.ts";
import type { ServerState } from "./server-state.ts";

// Only the page's own files run: no inline script, no other origin, no framing.
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

function asset(body: string, type: string): () => Response {
  return () => new Response(body, { headers: { "content-type": `${type}; charset=utf-8`, ...SECURITY_HEADERS } });
}

/** The console's routes, to mount at the root of the server's app. */
export function consoleRoutes(services: AgentServices, state: ServerState, token: string): Hono {
  const routes = new Hono();
  routes.get("/", asset(CONSOLE_HTML, "text/html"));
  routes.get("/console/console.css", asset(CONSOLE_CSS, "text/css"));
  routes.get("/console/console.js", asset(CONSOLE_JS, "text/javascript"));
  routes.get("/console/activity", (c) => {
    if (!isAuthorizedByHeader(c.req.raw, token)) return unauthorized();
    const sessions: Record<string, { running: boolean; clients: number }> = {};
    for (const live of services.sessions.all()) sessions[live.agent.id] = { running: live.agent.running, clients: state.clientsOf(live.agent.id) };
    return json({ sessions });
  });
  return routes;
}
