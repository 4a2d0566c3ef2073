/**
 * A subagent: a turn of its own inside a `task` call of the parent's turn —
 * a fresh history holding only its task, its own system prompt and a subset
 * of the parent turn's tools — on the parent's model, workspace, permission
 * gate and abort signal, so a cancel stops it with the parent and its calls
 * ask the user exactly as the parent's would. It never gets `task` (one
 * level deep), `plan` (the parent's todo list) or `ask` (only the parent talks
 * to the user). Its tool calls reach the parent's sink tagged with the task
 * call's id; its messages stay its own, and only its answer goes back.
 * @module
 */
import type { AssistantMessage, ModelMessage } from "../models/types.ts";
import type { SubagentAnswer, SubagentHost, SubagentRequest } from "../tools/types.ts";
import type { EventSink } from "./events.ts";
import { runTurn, type TurnContext } from "./turn.ts";

/** Tools a subagent never gets, whatever its agent file lists. */
const WITHHELD = new Set(["task", "plan", "ask"]);
/** Progress shown in the task call: the end of the subagent's latest reply, this many characters at most. */
const PROGRESS_CHARS = 2000;

/** The host the `task` call `parentToolCallId` of the turn `parent` runs its subagent on. */
export function subagentHost(parent: TurnContext, parentToolCallId: string, recordUsage: TurnContext["recordUsage"]): SubagentHost {
  return {
    async run(request: SubagentRequest): Promise<SubagentAnswer> {
      const history: ModelMessage[] = [];
      const emit = subagentSink(parent.emit, parentToolCallId);
      const authorize = parent.authorize;
      const stopReason = await runTurn(
        {
          model: parent.model,
          system: request.system,
          tools: parent.tools.filter((tool) => !WITHHELD.has(tool.name) && request.offers(tool)),
          workspace: parent.workspace,
          thinking: parent.thinking,
          // One budget for the whole turn: the subagent's calls are the parent turn's.
          requests: parent.requests,
          history,
          signal: parent.signal,
          emit,
          // The parent's gate decides, told whose call it is (the permission request names the task call too).
          ...(authorize ? { authorize: (call) => authorize({ ...call, parentToolCallId }) } : {}),
          recordUsage,
          // Same provider cache key as the parent's requests; its commands are the session's.
          ...(parent.cacheKey ? { cacheKey: parent.cacheKey } : {}),
          ...(parent.webSearch ? { webSearch: parent.webSearch } : {}),
          ...(parent.backgroundCommands ? { backgroundCommands: parent.backgroundCommands } : {}),
          ...(parent.steps ? { steps: parent.steps } : {}),
          // The session's hooks see its calls too; its end is a subagent's stop.
          ...(parent.hooks ? { hooks: parent.hooks } : {}),
          subagent: true,
        },
        { role: "user", content: [{ type: "text", text: request.prompt }] },
      );
      return { text: lastReply(history), stopReason };
    },
  };
}

/** What of a subagent's events the parent's sink is given. */
function subagentSink(parent: EventSink, parentToolCallId: string): EventSink {
  return (event) => {
    switch (event.type) {
      case "tool_call":
      case "tool_call_preview":
      case "tool_call_update":
      case "tool_output":
      case "tool_terminal":
        return parent({ ...event, parentToolCallId });
      case "usage":
      case "notice":
      case "files_changed":
        return parent(event);
      case "message": {
        // Each finished reply with text shows as the task call's progress (bounded), not as the parent's message.
        if (event.message.role !== "assistant") return;
        const text = replyText(event.message);
        if (text === "") return;
        const shown = text.length > PROGRESS_CHARS ? `…${text.slice(text.length - PROGRESS_CHARS)}` : text;
        return parent({ type: "tool_call_update", toolCallId: parentToolCallId, status: "in_progress", content: [{ type: "text", text: shown }] });
      }
      default:
        // Its streamed text, thinking and compaction are its own conversation's.
        return;
    }
  };
}

function replyText(message: AssistantMessage): string {
  return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

/** The text of the subagent's last reply: its answer. */
function lastReply(history: readonly ModelMessage[]): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role === "assistant") {
      const text = replyText(message);
      if (text.trim() !== "") return text;
    }
  }
  return "";
}
