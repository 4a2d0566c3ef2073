/**
 * Every handler but `initialize`, registered together; loaded on demand
 * (see deferred-handlers.ts) because they pull in the sessions layer, the
 * engine and the tools.
 * @module
 */
import type { AgentServices } from "../sessions/services.ts";
import type { ConnectionState } from "./connection-state.ts";
import { registerAuth } from "./handlers/auth.ts";
import { registerPrompt } from "./handlers/prompt.ts";
import { registerSessionArchive } from "./handlers/session-archive.ts";
import { registerSessionConfig } from "./handlers/session-config.ts";
import { registerSessionLifecycle } from "./handlers/session-lifecycle.ts";
import { registerStoredSessions } from "./handlers/session-stored.ts";
import { registerSessionTitle } from "./handlers/session-rename.ts";
import { registerSteering } from "./handlers/steering.ts";
import type { HandlerApp } from "./protocol-handlers.ts";

/** Registers `authenticate`, `logout`, every `session/*` method and `_session/steering` on `app`. */
export function registerSessionHandlers(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  registerAuth(app, services, state);
  registerSessionLifecycle(app, services, state);
  registerStoredSessions(app, services, state);
  registerPrompt(app, services, state);
  registerSteering(app, services, state);
  registerSessionConfig(app, services, state);
  registerSessionTitle(app, services, state);
  registerSessionArchive(app, services, state);
}
