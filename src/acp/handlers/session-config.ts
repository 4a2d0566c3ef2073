/**
 * `session/set_mode` and `session/set_config_option`. The approval mode is
 * both the session mode and the `mode` config option; either way of setting
 * it sends both `current_mode_update` and `config_option_update`.
 * @module
 */
import type { ConnectionState } from "../connection-state.ts";
import { invalidParams } from "../errors.ts";
import { methods, type AgentApp, type SessionUpdate } from "../sdk.ts";
import { broadcast } from "../../sessions/session-broadcast.ts";
import { attachedSession } from "../session-access.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { isApprovalMode } from "../../config/settings.ts";
import { applyConfigOption, configOptions } from "../../sessions/session-settings.ts";
import type { LiveSession } from "../../sessions/session-registry.ts";

/** Stores the changed setting (it is restored on load), then tells every attached client. */
async function announce(live: LiveSession, services: AgentServices, modeChanged: boolean): Promise<void> {
  const info = live.agent.model.info;
  await live.recorder.write({ type: "config", mode: live.mode, model: `${info.provider}/${info.id}`, thinking: live.agent.thinking }, true);
  const updates: SessionUpdate[] = [];
  if (modeChanged) updates.push({ sessionUpdate: "current_mode_update", currentModeId: live.mode });
  updates.push({ sessionUpdate: "config_option_update", configOptions: configOptions(live, services) });
  for (const update of updates) await broadcast(live, update);
}

export function registerSessionConfig(app: AgentApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.setMode, async ({ params }) => {
    const live = attachedSession(services, state, params.sessionId);
    if (!isApprovalMode(params.modeId)) throw invalidParams(`unknown mode "${params.modeId}"; use read-only, ask, write or yolo`, { modeId: params.modeId });
    await applyConfigOption(live, services, "mode", params.modeId);
    await announce(live, services, true);
    return {};
  });

  app.onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
    const live = attachedSession(services, state, params.sessionId);
    const changed = await applyConfigOption(live, services, params.configId, params.value);
    await announce(live, services, changed === "mode");
    return { configOptions: configOptions(live, services) };
  });
}
