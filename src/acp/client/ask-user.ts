/**
 * The `ask` tool for a turn, when the prompting client can show a form
 * (`clientCapabilities.elicitation.form`): questions go to that client alone,
 * as permission requests do, with `elicitation/create` in form mode, bounded
 * in time by `permissionTimeoutSeconds` and cancelled with the turn (the
 * pending request is cancelled with `$/cancel_request`).
 * @module
 */
import type { LiveSession } from "../../sessions/live-session.ts";
import { askTool, type AskUser } from "../../tools/ask.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { answerTimeoutMs, boundedClientRequest } from "./bounded-client-request.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { questionForm, readFormAnswer } from "./question-form.ts";
import { methods, type AgentContext } from "../sdk.ts";

/** Asks through `client` in session `sessionId`; a request that fails or times out is a failed answer, a cancelled turn rejects. */
export function createAskUser(client: AgentContext, sessionId: string, timeoutMs: number): AskUser {
  return async (question, signal) => {
    const answer = await boundedClientRequest(signal, timeoutMs, (cancellationSignal) =>
      client.request(
        methods.client.elicitation.create,
        {
          sessionId,
          ...(question.toolCallId ? { toolCallId: question.toolCallId } : {}),
          mode: "form",
          message: question.question,
          requestedSchema: questionForm(question),
        },
        { cancellationSignal, stopWaitingOnCancel: true },
      ),
    );
    switch (answer.ended) {
      case "answered":
        return readFormAnswer(question, answer.response as unknown);
      case "cancelled":
        throw signal.reason;
      case "timeout":
        return { outcome: "failed", reason: `the user did not answer within ${answer.seconds} s` };
      case "failed":
        return { outcome: "failed", reason: `the client could not show the question (${answer.message})` };
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
  return { tools: [askTool(createAskUser(client, live.id, answerTimeoutMs(live)))] };
}
