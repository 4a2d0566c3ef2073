/**
 * `authenticate` and `logout`. Credentials are never collected over ACP
 * (`acp-edge login` stores them, run by the client in a terminal or by the
 * user); `authenticate` confirms they exist, and `logout` makes this
 * connection authenticate again before it may open sessions.
 * @module
 */
import { ConfigError } from "../../config/settings.ts";
import { AUTH_METHOD_IDS, authRequired, internalError, invalidParams } from "../errors.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { methods } from "../sdk.ts";
import type { AgentServices } from "../../sessions/services.ts";

/** Registers `authenticate` and `logout`. */
export function registerAuth(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.authenticate, async ({ params, client, requestId }) => {
    if (!AUTH_METHOD_IDS.includes(params.methodId)) {
      throw invalidParams(`unknown authentication method "${params.methodId}"; advertised methods: [${AUTH_METHOD_IDS.join(", ")}]`, {
        methodId: params.methodId,
      });
    }
    // A terminal login in another process may have stored a key since this agent started.
    try {
      await services.registry.refresh();
    } catch (error) {
      if (error instanceof ConfigError) throw internalError(`Credentials cannot be read: ${error.message}`);
      throw error;
    }
    const choice = services.registry.pickDefault(services.options.model ?? services.config.settings.defaultModel);
    if ("kind" in choice && choice.kind === "auth") throw authRequired(choice.message);
    state.authenticated = true;
    await (await import("./auth-status.ts")).announceAuthStatus(services, state, client, requestId);
    return {};
  });

  app.onRequest(methods.agent.logout, async ({ client, requestId }) => {
    state.authenticated = false;
    await (await import("./auth-status.ts")).announceAuthStatus(services, state, client, requestId);
    return {};
  });
}
