/**
 * The `ask` tool for a turn, when the prompting client can show a form
 * (`clientCapabilities.elicitation.form`): questions go to that client alone,
 * as permission requests do, with `elicitation/create` in form mode, bounded
 * in time by `permissionTimeoutSeconds` and cancelled with the turn (the
 * pending request is cancelled with `$/cancel_request`).
 * @module
 */
import type { LiveSession } from "../sessions/live-session.ts";
import { askTool, type AskUser } from "../tools/ask.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { ConnectionState } from "./connection-state.ts";
import { questionForm, readFormAnswer } from "./question-form.ts";
import { methods, type AgentContext } from "./sdk.ts";

/** Asks through `client` in session `sessionId`; a request that fails or times out is a failed answer, a cancelled turn rejects. */
export function createAskUser(client: AgentContext, sessionId: string, timeoutMs: number): AskUser {
  return async (question, signal) => {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error("timeout")), timeoutMs);
    const cancellation = AbortSignal.any([signal, timeout.signal]);
    try {
      const response: unknown = await client.request(
        methods.client.elicitation.create,
        {
          sessionId,
          ...(question.toolCallId ? { toolCallId: question.toolCallId } : {}),
          mode: "form",
          message: question.question,
          requestedSchema: questionForm(question),
        },
        { cancellationSignal: cancellation, stopWaitingOnCancel: true },
      );
      return readFormAnswer(question, response);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (timeout.signal.aborted) return { outcome: "failed", reason: `the user did not answer within ${Math.round(timeoutMs / 1000)} s` };
      const message = error instanceof Error ? error.message : String(error);
      return { outcome: "failed", reason: `the client could not show the question (${message})` };
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Whether the client advertised form elicitation. */
function showsForms(state: ConnectionState): boolean {
  const form = (state.clientCapabilities.elicitation as { form?: unknown } | null | undefined)?.form;
  return typeof form === "object" && form !== null;
}

/** The turn option offering `ask` when the prompting client shows forms; nothing otherwise. */
export function askTools(live: LiveSession, client: AgentContext, state: ConnectionState): { tools?: ToolDefinition[] } {
  if (!showsForms(state)) return {};
  return { tools: [askTool(createAskUser(client, live.id, (live.settings.permissionTimeoutSeconds ?? 600) * 1000))] };
}
