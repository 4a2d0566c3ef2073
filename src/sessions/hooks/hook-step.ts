/**
 * The session's hooks where the engine asks: `PreToolUse` and `PostToolUse`
 * as a step around every tool call (see engine/call-steps.ts), `Stop`,
 * `SubagentStop` and `PreCompact` as the turn's hooks (engine/turn-hooks.ts).
 * @module
 */
import type { CallStep, Gate, StepCall } from "../../engine/call-steps.ts";
import type { TurnHooks } from "../../engine/turn-hooks.ts";
import { claudeToolInput, claudeToolName, claudeToolNames, claudeToolResponse } from "./hook-tool-input.ts";
import type { SessionHooks } from "./session-hooks.ts";

/** What a call's hooks are told about it. */
function toolFields(call: StepCall): { names: string[]; fields: Record<string, unknown> } {
  const { tool, input, workspace } = call;
  return {
    names: claudeToolNames(tool.name, input),
    fields: { tool_name: claudeToolName(tool.name, input), tool_input: claudeToolInput(tool.name, input, workspace.cwd) },
  };
}

/** PreToolUse before the permission gate, PostToolUse once the call returned a result. */
export function hookCallStep(hooks: SessionHooks): CallStep {
  return {
    async gate(call): Promise<Gate | undefined> {
      const { names, fields } = toolFields(call);
      const verdict = await hooks.fire("PreToolUse", fields, call.signal, names);
      const refusal = verdict.block ?? verdict.halt;
      if (refusal !== undefined) return { decision: "deny", reason: `Blocked by a PreToolUse hook: ${refusal}` };
      return verdict.permission;
    },
    async before(call) {
      return async (outcome) => {
        if (!outcome.result || call.signal.aborted) return undefined;
        const { names, fields } = toolFields(call);
        const response = claudeToolResponse(call.tool.name, call.input, call.workspace.cwd, outcome.result);
        const verdict = await hooks.fire("PostToolUse", { ...fields, tool_response: response }, call.signal, names);
        // The call already ran: a block (exit 2, `decision: "block"`) and added context are feedback for the model.
        const said = [verdict.block, verdict.halt, ...verdict.context].filter((text): text is string => text !== undefined);
        return said.length > 0 ? `PostToolUse hook feedback:\n${said.join("\n")}` : undefined;
      };
    },
  };
}

/** Stop and SubagentStop when a turn would end; PreCompact before a summary. */
export function hookTurnHooks(hooks: SessionHooks): TurnHooks {
  return {
    async stopping({ subagent, active, signal }) {
      const verdict = await hooks.fire(subagent ? "SubagentStop" : "Stop", { stop_hook_active: active }, signal);
      // `continue: false` ends the turn whatever else was said; a block sends the model on with the reason.
      if (verdict.halt !== undefined || verdict.block === undefined) return undefined;
      return `${subagent ? "SubagentStop" : "Stop"} hook feedback:\n${verdict.block}`;
    },
    async compacting(trigger, signal, instructions) {
      await hooks.fire("PreCompact", { trigger, custom_instructions: instructions ?? "" }, signal, [trigger]);
    },
  };
}
