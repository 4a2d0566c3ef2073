/**
 * Every handler but `initialize`, registered together; loaded on demand
 * (see deferred-handlers.ts) because they pull in the sessions layer, the
 * engine and the tools.
 * @module
 */
import type { AgentServices } from "../../sessions/services.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { registerAuth } from "./auth.ts";
import { registerProviderMethods } from "./provider-methods.ts";
import { registerPrompt } from "./prompt.ts";
import { registerSessionArchive } from "./session-archive.ts";
import { registerSessionConfig } from "./session-config.ts";
import { registerSessionLifecycle } from "./session-lifecycle.ts";
import { registerStoredSessions } from "./session-stored.ts";
import { registerSessionTitle } from "./session-rename.ts";
import { registerSteering } from "./steering.ts";
import { registerRewind } from "./rewind.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";

/** Registers `authenticate`, `logout`, `auth/status`, `providers/*`, every `session/*` method and `_session/steering` on `app`. */
export function registerSessionHandlers(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  registerAuth(app, services, state);
  registerProviderMethods(app, services, state);
  registerSessionLifecycle(app, services, state);
  registerStoredSessions(app, services, state);
  registerPrompt(app, services, state);
  registerSteering(app, services, state);
  registerRewind(app, services, state);
  registerSessionConfig(app, services, state);
  registerSessionTitle(app, services, state);
  registerSessionArchive(app, services, state);
}
