/**
 * `session/set_mode` and `session/set_config_option`. The approval mode is
 * both the session mode and the `mode` config option; either way of setting
 * it sends both `current_mode_update` and `config_option_update`.
 * @module
 */
import { invalidParams, sessionNotFound } from "../errors.ts";
import { methods, type AgentApp, type AgentContext, type SessionUpdate } from "../sdk.ts";
import type { AgentServices } from "../services.ts";
import { applyConfigOption, configOptions, isApprovalMode } from "../session-config.ts";
import type { LiveSession } from "../session-registry.ts";

/** Stores the changed setting (it is restored on load), then tells the client. */
async function announce(client: AgentContext, live: LiveSession, services: AgentServices, modeChanged: boolean): Promise<void> {
  const info = live.agent.model.info;
  await live.recorder.write({ type: "config", mode: live.mode, model: `${info.provider}/${info.id}`, thinking: live.agent.thinking }, true);
  const updates: SessionUpdate[] = [];
  if (modeChanged) updates.push({ sessionUpdate: "current_mode_update", currentModeId: live.mode });
  updates.push({ sessionUpdate: "config_option_update", configOptions: configOptions(live, services) });
  for (const update of updates) await client.notify(methods.client.session.update, { sessionId: live.agent.id, update });
}

export function registerSessionConfig(app: AgentApp, services: AgentServices): void {
  app.onRequest(methods.agent.session.setMode, async ({ params, client }) => {
    const live = services.sessions.get(params.sessionId);
    if (!live) throw sessionNotFound(params.sessionId);
    if (!isApprovalMode(params.modeId)) throw invalidParams(`unknown mode "${params.modeId}"; use read-only, ask, write or yolo`, { modeId: params.modeId });
    await applyConfigOption(live, services, "mode", params.modeId);
    await announce(client, live, services, true);
    return {};
  });

  app.onRequest(methods.agent.session.setConfigOption, async ({ params, client }) => {
    const live = services.sessions.get(params.sessionId);
    if (!live) throw sessionNotFound(params.sessionId);
    const changed = await applyConfigOption(live, services, params.configId, params.value);
    await announce(client, live, services, changed === "mode");
    return { configOptions: configOptions(live, services) };
  });
}
