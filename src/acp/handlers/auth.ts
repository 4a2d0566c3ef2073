/**
 * `authenticate` and `logout`. Credentials are configured outside ACP; the
 * one auth method confirms they exist, and `logout` makes this connection
 * authenticate again before it may open sessions.
 * @module
 */
import { AUTH_METHOD_ID, authRequired, invalidParams } from "../errors.ts";
import type { ConnectionState } from "../connection-state.ts";
import type { HandlerApp } from "../protocol-handlers.ts";
import { methods } from "../sdk.ts";
import type { AgentServices } from "../../sessions/services.ts";

/** Registers `authenticate` and `logout`. */
export function registerAuth(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.authenticate, ({ params }) => {
    if (params.methodId !== AUTH_METHOD_ID) {
      throw invalidParams(`unknown authentication method "${params.methodId}"; advertised methods: [${AUTH_METHOD_ID}]`, {
        methodId: params.methodId,
      });
    }
    const choice = services.registry.pickDefault(services.options.model ?? services.config.settings.defaultModel);
    if ("kind" in choice && choice.kind === "auth") throw authRequired(choice.message);
    state.authenticated = true;
    return {};
  });

  app.onRequest(methods.agent.logout, () => {
    state.authenticated = false;
    return {};
  });
}
