/**
 * `session/set_mode` and `session/set_config_option`. The approval mode is
 * both the session mode and the `mode` config option; either way of setting
 * it sends both `current_mode_update` and `config_option_update`.
 * @module
 */
import { isApprovalMode } from "../../config/settings.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { changeSetting } from "../../sessions/session-settings.ts";
import { configOptions } from "../config-options.ts";
import type { ConnectionState } from "../connection-state.ts";
import { invalidParams } from "../errors.ts";
import type { HandlerApp } from "../protocol-handlers.ts";
import { methods } from "../sdk.ts";
import { attachedSession } from "../session-access.ts";

/** Registers `session/set_mode` and `session/set_config_option`. */
export function registerSessionConfig(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.setMode, async ({ params }) => {
    const live = attachedSession(services, state, params.sessionId);
    if (!isApprovalMode(params.modeId)) throw invalidParams(`unknown mode "${params.modeId}"; use read-only, ask, write or yolo`, { modeId: params.modeId });
    await changeSetting(live, services, "mode", params.modeId);
    return {};
  });

  app.onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
    const live = attachedSession(services, state, params.sessionId);
    await changeSetting(live, services, params.configId, params.value);
    return { configOptions: configOptions(live, services) };
  });
}
