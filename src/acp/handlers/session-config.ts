/**
 * `session/set_mode`, `session/set_config_option` and the older drafts'
 * `session/set_model`. The approval mode is both the session mode and the
 * `mode` config option; either way of setting it sends both
 * `current_mode_update` and `config_option_update`. The model is the `model`
 * config option, which `session/set_model` sets too (the legacy `models` is
 * a view of it); either way sends `config_option_update`.
 * @module
 */
import * as v from "valibot";
import { isApprovalMode } from "../../config/settings.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { changeSetting } from "../../sessions/session-settings.ts";
import { configOptions } from "./config-options.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { invalidParams } from "../errors.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { META, ownParams } from "../params/own-params.ts";
import { methods } from "../sdk.ts";
import { attachedSession } from "./session-access.ts";

const SetModelParams = v.object({ sessionId: v.string(), modelId: v.string(), _meta: META });

/** Registers `session/set_mode`, `session/set_config_option` and `session/set_model`. */
export function registerSessionConfig(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.setMode, async ({ params }) => {
    const live = attachedSession(services, state, params.sessionId);
    if (!isApprovalMode(params.modeId)) throw invalidParams(`unknown mode "${params.modeId}"; use read-only, ask, write, auto or yolo`, { modeId: params.modeId });
    await changeSetting(live, services, "mode", params.modeId);
    return {};
  });

  app.onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
    const live = attachedSession(services, state, params.sessionId);
    await changeSetting(live, services, params.configId, params.value);
    return { configOptions: configOptions(live, services) };
  });

  // No ACP schema names a notification for it: the change is told with `config_option_update`, as through the config option.
  app.onRequest("session/set_model", ownParams(SetModelParams), async ({ params }) => {
    const live = attachedSession(services, state, params.sessionId);
    await changeSetting(live, services, "model", params.modelId);
    return {};
  });
}
