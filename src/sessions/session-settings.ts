/**
 * A session's settings that clients may change while it runs: the approval
 * mode, the model and the thinking level. A change is validated, stored in
 * the journal (it is restored on load) and told to every attached client.
 * @module
 */
import { APPROVAL_MODES, type ApprovalMode } from "../config/settings-schema.ts";
import { isApprovalMode } from "../config/settings.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../models/types.ts";
import type { AgentServices } from "./services.ts";
import type { LiveSession } from "./live-session.ts";
import { broadcast } from "./session-broadcast.ts";
import { SessionError } from "./session-error.ts";

/** The levels the session's model accepts: all for reasoning models, only `off` otherwise. */
export function thinkingLevels(live: LiveSession): readonly ThinkingLevel[] {
  return live.agent.model.info.reasoning ? THINKING_LEVELS : ["off"];
}

/** The session's model as `provider/id`. */
export function currentModelSpec(live: LiveSession): string {
  const info = live.agent.model.info;
  return `${info.provider}/${info.id}`;
}

/** Models offered in the picker: every authenticated one, plus the current one (e.g. an offline faux model). */
export function modelChoices(live: LiveSession, services: AgentServices): Array<{ value: string; name: string; description?: string }> {
  const current = currentModelSpec(live);
  const choices = services.registry.authenticated().map((c) => ({ value: c.spec, name: c.info.name, description: c.spec }));
  if (!choices.some((c) => c.value === current)) choices.unshift({ value: current, name: live.agent.model.info.name, description: current });
  return choices;
}

/** Sets one option; refuses an unknown option or value (`invalid_params`). Returns what changed. */
async function applyConfigOption(live: LiveSession, services: AgentServices, configId: string, value: unknown): Promise<"mode" | "model" | "thought_level"> {
  if (typeof value !== "string") throw new SessionError("invalid_params", `config option "${configId}" takes a string value`, { configId });
  switch (configId) {
    case "mode":
      if (!isApprovalMode(value)) throw new SessionError("invalid_params", `unknown mode "${value}"; use one of ${APPROVAL_MODES.join(", ")}`, { configId, value });
      live.setMode(value);
      return "mode";
    case "model": {
      const allowed = modelChoices(live, services).map((c) => c.value);
      if (!allowed.includes(value)) {
        throw new SessionError("invalid_params", `model "${value}" is not available (it is unknown or has no credentials); choose one of ${allowed.join(", ")}`, { configId, value });
      }
      if (value !== currentModelSpec(live)) {
        const choice = services.registry.find(value);
        if ("kind" in choice) throw new SessionError("invalid_params", choice.message, { configId, value });
        live.setModel(await services.registry.createClient(choice));
      }
      return "model";
    }
    case "thought_level": {
      const levels = thinkingLevels(live);
      if (!(levels as readonly string[]).includes(value)) {
        throw new SessionError("invalid_params", `thinking level "${value}" is not available for this model; choose one of ${levels.join(", ")}`, { configId, value });
      }
      live.setThinking(value as ThinkingLevel);
      return "thought_level";
    }
    default:
      throw new SessionError("invalid_params", `unknown config option "${configId}"; options are mode, model, thought_level`, { configId });
  }
}

/**
 * Changes one setting (`mode`, `model` or `thought_level`), stores the
 * session's settings, then tells every attached client. Returns what changed.
 */
export async function changeSetting(
  live: LiveSession,
  services: AgentServices,
  configId: string,
  value: unknown,
): Promise<"mode" | "model" | "thought_level"> {
  const changed = await applyConfigOption(live, services, configId, value);
  await live.recorder.write({ type: "config", mode: live.mode, model: currentModelSpec(live), thinking: live.agent.thinking }, true);
  await broadcast(live, { type: "settings", modeChanged: changed === "mode" });
  return changed;
}
