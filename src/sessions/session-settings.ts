/**
 * A session's modes and config options as ACP shows them: the approval mode
 * (also the session mode), the model and the thinking level. Changing one
 * goes through `applyConfigOption`, which validates the value.
 * @module
 */
import { APPROVAL_MODES, type ApprovalMode } from "../config/settings-schema.ts";
import { isApprovalMode } from "../config/settings.ts";
import { THINKING_LEVELS, type ThinkingLevel } from "../models/types.ts";
import { invalidParams } from "../acp/errors.ts";
import type { SessionConfigOption, SessionModeState } from "../acp/sdk.ts";
import type { AgentServices } from "./services.ts";
import type { LiveSession } from "./session-registry.ts";

const MODE_TEXT: Record<ApprovalMode, { name: string; description: string }> = {
  "read-only": { name: "Read-only", description: "Reads and searches; edits and commands are refused without asking" },
  ask: { name: "Ask", description: "Asks before edits and commands; reads inside the project run" },
  write: { name: "Write", description: "Edits inside the project run; commands ask" },
  yolo: { name: "Yolo", description: "Nothing asks: edits and commands run" },
};

const THINKING_TEXT: Record<ThinkingLevel, string> = {
  off: "Off",
  minimal: "Minimal",
  low: "Low",
  medium: "Medium",
  high: "High",
  xhigh: "Extra high",
};

export function modeState(live: LiveSession): SessionModeState {
  return {
    currentModeId: live.mode,
    availableModes: APPROVAL_MODES.map((id) => ({ id, ...MODE_TEXT[id] })),
  };
}

/** The levels the session's model accepts: all for reasoning models, only `off` otherwise. */
function thinkingLevels(live: LiveSession): readonly ThinkingLevel[] {
  return live.agent.model.info.reasoning ? THINKING_LEVELS : ["off"];
}

function currentModelSpec(live: LiveSession): string {
  const info = live.agent.model.info;
  return `${info.provider}/${info.id}`;
}

/** Models offered in the picker: every authenticated one, plus the current one (e.g. an offline faux model). */
function modelChoices(live: LiveSession, services: AgentServices): Array<{ value: string; name: string; description?: string }> {
  const current = currentModelSpec(live);
  const choices = services.registry.authenticated().map((c) => ({ value: c.spec, name: c.info.name, description: c.spec }));
  if (!choices.some((c) => c.value === current)) choices.unshift({ value: current, name: live.agent.model.info.name, description: current });
  return choices;
}

export function configOptions(live: LiveSession, services: AgentServices): SessionConfigOption[] {
  const levels = thinkingLevels(live);
  return [
    {
      id: "mode",
      name: "Approval",
      description: "What the agent may do without asking",
      category: "mode",
      type: "select",
      currentValue: live.mode,
      options: APPROVAL_MODES.map((id) => ({ value: id, name: MODE_TEXT[id].name, description: MODE_TEXT[id].description })),
    },
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: currentModelSpec(live),
      options: modelChoices(live, services),
    },
    {
      id: "thought_level",
      name: "Thinking",
      description: live.agent.model.info.reasoning ? "How much the model reasons before answering" : "This model does not reason",
      category: "thought_level",
      type: "select",
      currentValue: levels.includes(live.agent.thinking) ? live.agent.thinking : "off",
      options: levels.map((level) => ({ value: level, name: THINKING_TEXT[level] })),
    },
  ];
}


/** Sets one option; throws -32602 for an unknown option or value. Returns what changed. */
export async function applyConfigOption(live: LiveSession, services: AgentServices, configId: string, value: unknown): Promise<"mode" | "model" | "thought_level"> {
  if (typeof value !== "string") throw invalidParams(`config option "${configId}" takes a string value`, { configId });
  switch (configId) {
    case "mode":
      if (!isApprovalMode(value)) throw invalidParams(`unknown mode "${value}"; use one of ${APPROVAL_MODES.join(", ")}`, { configId, value });
      live.mode = value;
      return "mode";
    case "model": {
      const allowed = modelChoices(live, services).map((c) => c.value);
      if (!allowed.includes(value)) {
        throw invalidParams(`model "${value}" is not available (it is unknown or has no credentials); choose one of ${allowed.join(", ")}`, { configId, value });
      }
      if (value !== currentModelSpec(live)) {
        const choice = services.registry.find(value);
        if ("kind" in choice) throw invalidParams(choice.message, { configId, value });
        live.agent.model = await services.registry.createClient(choice);
      }
      return "model";
    }
    case "thought_level": {
      const levels = thinkingLevels(live);
      if (!(levels as readonly string[]).includes(value)) {
        throw invalidParams(`thinking level "${value}" is not available for this model; choose one of ${levels.join(", ")}`, { configId, value });
      }
      live.agent.thinking = value as ThinkingLevel;
      return "thought_level";
    }
    default:
      throw invalidParams(`unknown config option "${configId}"; options are mode, model, thought_level`, { configId });
  }
}
