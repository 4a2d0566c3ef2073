/**
 * `session/prompt` and `session/cancel`: run a built-in command, or a turn
 * (with prompt templates expanded) under this client's permissions and
 * capabilities; stream it to every attached client, and answer with the stop
 * reason only after every update of the turn was sent.
 * @module
 */
import { SessionBusyError } from "../../engine/session.ts";
import { restoreInteractiveJit } from "../../runtime/jit-policy.ts";
import { ModelError } from "../../models/types.ts";
import { promptSession } from "../../sessions/prompt-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { clientWorkspace } from "../client-workspace.ts";
import type { ConnectionState } from "../connection-state.ts";
import { internalError, protocolError, sessionBusy, toRequestError } from "../errors.ts";
import { createAuthorizer } from "../permissions/authorizer.ts";
import { promptToContent } from "../prompt-content.ts";
import type { HandlerApp } from "../protocol-handlers.ts";
import { methods, type ContentBlock, type PromptResponse } from "../sdk.ts";
import { attachedSession, checkScope } from "../session-access.ts";

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

/** Registers `session/prompt` and `session/cancel`. */
export function registerPrompt(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.prompt, async ({ params, client, signal }): Promise<PromptResponse> => {
    const live = attachedSession(services, state, params.sessionId);
    const leading = slashText(params.prompt);
    // The request's own cancellation, or the end of this client's input.
    const cancelled = eitherSignal(signal, state.inputEnded.signal);
    try {
      const stopReason = await promptSession(services, live, {
        clientId: state.id,
        ...(leading === undefined ? {} : { slashText: leading }),
        // An expanded template replaces the command line; the attachments after it stay.
        readPrompt: (text) => promptToContent(text === undefined ? params.prompt : [{ type: "text", text }, ...params.prompt.slice(1)], live.agent.workspace),
        signal: cancelled.signal,
        turn: {
          authorize: createAuthorizer({ live, client }),
          workspace: clientWorkspace(live.agent.workspace, client, state.clientCapabilities, live.id),
        },
      });
      return { stopReason };
    } catch (error) {
      throw failure(error, params.sessionId);
    } finally {
      cancelled.release();
      // A turn has run: what follows is the interactive work the JIT should compile (see jit-policy.ts).
      restoreInteractiveJit();
    }
  });

  app.onNotification(methods.agent.session.cancel, ({ params }) => {
    // Any attached client may cancel. An unknown or idle session is not an error (the turn may have just ended).
    try {
      checkScope(state, params.sessionId);
    } catch {
      return;
    }
    if (state.sessions.has(params.sessionId)) services.sessions.get(params.sessionId)?.cancel();
  });
}

/**
 * A signal that fires when either does, and `release` to let go of both. Not
 * `AbortSignal.any`: on Node 20 every signal it makes stays reachable from a
 * long-lived source (here the connection's), with all it holds, until that
 * source is collected: one per prompt for as long as the client stays.
 */
function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onA = () => controller.abort(a.reason);
  const onB = () => controller.abort(b.reason);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  else {
    a.addEventListener("abort", onA, { once: true });
    b.addEventListener("abort", onB, { once: true });
  }
  return {
    signal: controller.signal,
    release() {
      a.removeEventListener("abort", onA);
      b.removeEventListener("abort", onB);
    },
  };
}

