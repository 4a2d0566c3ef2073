/**
 * Registers the unstable `auth/status` and `providers/list|set|disable`. Few
 * clients call them, so their bodies (and their params' checks) load on the
 * first call (auth-status.ts, provider-requests.ts), not with the session
 * handlers every client needs; a status change is told to the client after
 * the answer (`auth/status_update`).
 * @module
 */
import type { AgentServices } from "../../sessions/services.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { UNSTABLE_METHODS } from "../sdk.ts";

/** Params pass through unread: the loaded body checks them. */
const later = (raw: unknown) => raw;

export function registerProviderMethods(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(UNSTABLE_METHODS.authStatus, later, async ({ params }) => {
    const [{ parseNoParams }, { authStatus }] = await Promise.all([import("../params/provider-params.ts"), import("./auth-status.ts")]);
    parseNoParams(params);
    const status = await authStatus(services, state);
    state.lastAuthStatus = JSON.stringify(status);
    return status;
  });
  app.onRequest(UNSTABLE_METHODS.providersList, later, async ({ params }) => (await import("./provider-requests.ts")).listProviders(services, params));
  app.onRequest(UNSTABLE_METHODS.providersSet, later, async ({ params, client, requestId }) => {
    const answer = await (await import("./provider-requests.ts")).setProvider(services, params);
    await (await import("./auth-status.ts")).announceAuthStatus(services, state, client, requestId);
    return answer;
  });
  app.onRequest(UNSTABLE_METHODS.providersDisable, later, async ({ params, client, requestId }) => {
    const answer = await (await import("./provider-requests.ts")).disableProvider(services, params);
    await (await import("./auth-status.ts")).announceAuthStatus(services, state, client, requestId);
    return answer;
  });
}
