/**
 * `session/new` and `session/close`.
 * @module
 */
import { authRequired, invalidParams, sessionNotFound } from "../errors.ts";
import { AUTH_METHOD_ID } from "../errors.ts";
import type { ConnectionState } from "../connection-state.ts";
import { methods, type AgentApp } from "../sdk.ts";
import { configOptions, modeState } from "../session-config.ts";
import type { AgentServices } from "../services.ts";

export function registerSessionLifecycle(app: AgentApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.new, async ({ params }) => {
    if (!state.authenticated) {
      throw authRequired(`This connection logged out. Call authenticate with methodId "${AUTH_METHOD_ID}" before session/new.`);
    }
    if (params.mcpServers.length > 0) {
      const names = params.mcpServers.map((s) => s.name).join(", ");
      throw invalidParams(`MCP servers are not supported by this version of acp-edge (got: ${names}); send "mcpServers": []`, {
        mcpServers: params.mcpServers.map((s) => s.name),
      });
    }
    // Loaded on first use: the engine, tools and prompt code are not needed to answer `initialize`.
    const { openSession } = await import("../open-session.ts");
    const live = await openSession(services, {
      cwd: params.cwd,
      ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
    });
    services.sessions.add(live);
    state.sessions.add(live.agent.id);
    return { sessionId: live.agent.id, modes: modeState(live), configOptions: configOptions(live, services) };
  });

  app.onRequest(methods.agent.session.close, async ({ params }) => {
    const live = services.sessions.get(params.sessionId);
    if (!live) throw sessionNotFound(params.sessionId);
    live.agent.cancel("the session was closed");
    await live.turn?.catch(() => undefined);
    services.sessions.remove(params.sessionId);
    state.sessions.delete(params.sessionId);
    return {};
  });
}
