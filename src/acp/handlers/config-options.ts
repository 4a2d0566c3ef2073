/**
 * A session's modes and config options as ACP shows them: the approval mode
 * (also the session mode), the model and the thinking level.
 * @module
 */
import { APPROVAL_MODES, type ApprovalMode } from "../../config/settings-schema.ts";
import type { ThinkingLevel } from "../../models/types.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { describeSandboxStatus, sandboxStatus } from "../../sessions/sandbox-status.ts";
import { currentModelSpec, modelChoices, thinkingLevels } from "../../sessions/session-settings.ts";
import type { SessionConfigOption, SessionModeState } from "../sdk.ts";

const MODE_TEXT: Record<ApprovalMode, { name: string; description: string }> = {
  "read-only": { name: "Read-only", description: "Reads and searches; edits are refused; commands run only in a read-only sandbox, refused where there is none" },
  ask: { name: "Ask", description: "Asks before edits and commands; reads inside the project run" },
  write: { name: "Write", description: "Edits inside the project run; commands ask" },
  auto: { name: "Auto", description: "Edits inside the project run; commands run in a sandbox without asking" },
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

/** The session mode state of `session/new`, `load` and `resume` answers. */
export function modeState(live: LiveSession): SessionModeState {
  return {
    currentModeId: live.mode,
    availableModes: APPROVAL_MODES.map((id) => ({ id, ...MODE_TEXT[id] })),
  };
}

/** The config options of the session, with their current values. */
export function configOptions(live: LiveSession, services: AgentServices): SessionConfigOption[] {
  const levels = thinkingLevels(live);
  return [
    {
      id: "mode",
      name: "Approval",
      // Where the editor shows it, the description also tells whether commands run in the sandbox now.
      description: `What the agent may do without asking. ${describeSandboxStatus(sandboxStatus(live.sandbox, live.mode))}`,
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

/**
 * The model picker of older ACP drafts (`models`, changed with `session/set_model`),
 * which older clients still read: a view of the `model` config option, with
 * the same choices and current value (both come from the session's model).
 */
export function modelState(live: LiveSession, services: AgentServices) {
  return {
    currentModelId: currentModelSpec(live),
    availableModels: modelChoices(live, services).map((c) => ({ modelId: c.value, name: c.name, ...(c.description ? { description: c.description } : {}) })),
  };
}

/** What `session/new`, `load`, `resume` and `fork` answer about a session's settings: its modes, config options and legacy model picker. */
export function sessionSettings(live: LiveSession, services: AgentServices) {
  return { modes: modeState(live), configOptions: configOptions(live, services), models: modelState(live, services) };
}
