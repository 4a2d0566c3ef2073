/**
 * The unstable `auth/status` and `auth/status_update`. The state says whether
 * this connection can open a session now: `authenticated` when a model with
 * credentials exists (and the client did not log out), `unauthenticated`
 * otherwise; never `auth_required` as an error. Accounts name the providers
 * that hold credentials and where they come from, never a key or header.
 * An update is sent after `authenticate`, `logout`, `providers/set` and
 * `providers/disable` when the status differs from the last one this
 * connection was told (or answered).
 * @module
 */
import { ConfigError } from "../../config/settings.ts";
import type { AgentServices } from "../../sessions/services.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import type { JsonRpcId } from "../connection/jsonrpc-envelope.ts";
import { log } from "../../runtime/log.ts";
import { UNSTABLE_METHODS, type AgentContext, type AuthStatusResponse, type AuthStatusUpdateNotification } from "../sdk.ts";

/** What `auth/status` answers and `auth/status_update` carries. */
export type AuthStatus = AuthStatusResponse & AuthStatusUpdateNotification & { accounts: Array<{ label: string; active: boolean }> };

const SOURCES: Record<string, string> = {
  "auth.json": "stored key",
  environment: "key from the environment",
  editor: "gateway set by the editor",
};

/** The status as of now (credential files read again: a terminal login may have happened). */
export async function authStatus(services: AgentServices, state: ConnectionState): Promise<AuthStatus> {
  const registry = services.registry;
  try {
    await registry.refresh();
  } catch (error) {
    // Unreadable credential files: nothing can be used until they are fixed.
    if (error instanceof ConfigError) return { state: "unauthenticated", accounts: [] };
    throw error;
  }
  const choice = registry.pickDefault(services.options.model ?? services.config.settings.defaultModel);
  const active = "kind" in choice ? undefined : choice.provider.name;
  const accounts: AuthStatus["accounts"] = [];
  for (const provider of registry.providers()) {
    const credential = registry.credential(provider);
    // Providers that need no key (local servers, the offline faux) are no account.
    if (!credential.ok || !(credential.source in SOURCES)) continue;
    accounts.push({ label: `${provider.name} (${SOURCES[credential.source]})`, active: provider.name === active });
  }
  return { state: state.authenticated && active !== undefined ? "authenticated" : "unauthenticated", accounts };
}

/**
 * After request `requestId` changed something, tells the client the new
 * status (after that request's answer) when it differs from what it last heard.
 */
export async function announceAuthStatus(services: AgentServices, state: ConnectionState, client: AgentContext, requestId: JsonRpcId): Promise<void> {
  let status: AuthStatus;
  try {
    status = await authStatus(services, state);
  } catch (error) {
    // The change itself succeeded; a status that cannot be worked out now is not worth failing it.
    log.debug("the auth status could not be worked out", error);
    return;
  }
  const text = JSON.stringify(status);
  if (text === state.lastAuthStatus) return;
  state.lastAuthStatus = text;
  state.afterAnswer(requestId, () => {
    void client.notify(UNSTABLE_METHODS.authStatusUpdate, status satisfies AuthStatusUpdateNotification).catch(() => undefined);
  });
}
