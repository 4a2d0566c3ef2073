/**
 * `session/prompt` and `session/cancel`: run a built-in command, or a turn
 * (with prompt templates expanded) under this client's permissions and
 * capabilities, after the prompts queued before it on the session; stream it
 * to every attached client, and answer with the stop reason only after every
 * update of the turn was sent. A cancel stops the running turn and answers
 * every queued prompt `cancelled`; `$/cancel_request` stops or drops only
 * its own prompt.
 * @module
 */
import { SessionBusyError } from "../../engine/session.ts";
import { restoreInteractiveJit } from "../../runtime/host/jit-policy.ts";
import { ModelError } from "../../models/types.ts";
import { promptSession } from "../../sessions/turns/prompt-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { clientTurnOptions, editorOf } from "../client/client-turn.ts";
import { eitherSignal } from "../../runtime/either-signal.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { internalError, protocolError, sessionBusy, toRequestError } from "../errors.ts";
import { planPrompt } from "../params/prompt-content.ts";
import { promptBudget } from "../../sessions/turns/prompt-budget.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { methods, type ContentBlock, type PromptResponse } from "../sdk.ts";
import { attachedSession } from "./session-access.ts";
import { cancelledSince } from "../connection/cancel-in-order.ts";
import { turnUsage } from "../updates/turn-usage.ts";
import { parsePromptParams } from "../params/prompt-params.ts";

/** The first text block of a prompt without attachments, which may be a slash command. */
function slashText(prompt: readonly ContentBlock[]): string | undefined {
  const [first, ...rest] = prompt;
  if (first?.type !== "text" || rest.some((b) => b.type === "image" || b.type === "audio")) return undefined;
  return first.text;
}

function failure(error: unknown, sessionId: string): unknown {
  error = protocolError(error);
  if (error instanceof SessionBusyError) return sessionBusy(sessionId);
  if (error instanceof ModelError) {
    return internalError(`Model request failed: ${error.message}`, {
      code: "model_error",
      ...(error.status === undefined ? {} : { status: error.status }),
    });
  }
  return toRequestError(error);
}

async function startCatalogRefresh(services: AgentServices): Promise<void> {
  const { refreshCatalogOnce } = await import("../../models/catalog-refresh.ts");
  await refreshCatalogOnce({ home: services.config.home, settings: services.config.settings.catalog });
}

/** Registers `session/prompt` and `session/cancel`. */
export function registerPrompt(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.prompt, parsePromptParams, async ({ params, client, signal, requestId }): Promise<PromptResponse> => {
    const live = attachedSession(services, state, params.sessionId);
    // Checked and sized before it may wait or run: a message over its budget is refused with nothing read.
    const plan = await planPrompt(params.prompt, live.agent.workspace, promptBudget(live.agent.model.info.contextWindow));
    // A cancel sent after this prompt was applied before this handler ran: the prompt is one it stopped.
    // Nothing awaits between this check and the claim below, so no cancel can slip in between.
    if (cancelledSince(state, params.sessionId, requestId)) return { stopReason: "cancelled" };
    const leading = slashText(params.prompt);
    // The request's own cancellation, or the end of this client's input.
    const cancelled = eitherSignal(signal, state.inputEnded);
    const usage = turnUsage();
    // The id the prompt's user message got (the client's own, or the agent's): answered so a client can rewind to it.
    let userMessageId: string | undefined;
    try {
      const stopReason = await promptSession(services, live, {
        clientId: state.id,
        ...(leading === undefined ? {} : { slashText: leading }),
        // An expanded template replaces the command line; the attachments after it stay.
        readPrompt: (text) => plan.read(text),
        signal: cancelled.signal,
        size: () => plan.bytes,
        turn: { ...clientTurnOptions(live, client, state), onUsage: usage.add },
        ...(params.messageId === undefined ? {} : { messageId: params.messageId }),
        joined: (id) => void (userMessageId = id),
        ...editorOf(client, state, live.id),
        // Loaded when a project's hooks first need an answer.
        askTrust: async (commands, asked) => (await import("../permissions/hook-trust-question.ts")).askHookTrust(live, client, commands, asked),
      });
      return { stopReason, ...usage.answer(), ...(userMessageId === undefined ? {} : { userMessageId }) };
    } catch (error) {
      throw failure(error, params.sessionId);
    } finally {
      cancelled.release();
      // A turn has run: what follows is the interactive work the JIT should compile (see jit-policy.ts).
      restoreInteractiveJit();
      // Once its answer is out, the catalogue may be refreshed in the background (when the user turned that on).
      if (services.config.settings.catalog?.refresh === true) state.afterAnswer(requestId, () => void startCatalogRefresh(services));
    }
  });

  // Applied by the connection guard as it arrives, in order with the prompts around it (cancel-in-order.ts);
  // registered so that the SDK checks its params like any other notification's.
  app.onNotification(methods.agent.session.cancel, () => undefined);
}
