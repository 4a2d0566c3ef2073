/**
 * `session/prompt` and `session/cancel`: run a built-in command, or a turn
 * (with prompt templates expanded) under this client's permissions and
 * capabilities; stream it to every attached client, and answer with the stop
 * reason only after every update of the turn was sent.
 * @module
 */
import { SessionBusyError } from "../../engine/session.ts";
import { ModelError } from "../../models/types.ts";
import { promptSession } from "../../sessions/prompt-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { expandTemplate, parseSlashCommand } from "../commands/arguments.ts";
import { builtinCommand } from "../commands/builtin-commands.ts";
import { clientWorkspace } from "../client-workspace.ts";
import type { ConnectionState } from "../connection-state.ts";
import { internalError, protocolError, sessionBusy, toRequestError } from "../errors.ts";
import { createAuthorizer } from "../permissions/authorizer.ts";
import { promptToContent } from "../prompt-content.ts";
import { methods, type AgentApp, type ContentBlock, type PromptResponse } from "../sdk.ts";
import { attachedSession, checkScope } from "../session-access.ts";

/** `/name args` as the first text block of a prompt without attachments, if it is one. */
function slashCommand(prompt: readonly ContentBlock[]) {
  const [first, ...rest] = prompt;
  if (first?.type !== "text" || rest.some((b) => b.type === "image" || b.type === "audio")) return undefined;
  const parsed = parseSlashCommand(first.text);
  return parsed ? { name: parsed.name, args: parsed.rest, attachments: rest } : undefined;
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
export function registerPrompt(app: AgentApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.prompt, async ({ params, client, signal }): Promise<PromptResponse> => {
    const live = attachedSession(services, state, params.sessionId);
    let blocks: readonly ContentBlock[] = params.prompt;
    const command = slashCommand(params.prompt);
    const builtin = command ? builtinCommand(command.name) : undefined;
    const template = command && !builtin ? live.templates.find((t) => t.name === command.name) : undefined;
    if (command && template) blocks = [{ type: "text", text: expandTemplate(template.body, command.args) }, ...command.attachments];
    try {
      const stopReason = await promptSession(live, {
        clientId: state.id,
        ...(builtin && command ? { command: async (emit) => (await builtin(command.args, { live, client, services, emit })).stopReason } : {}),
        readPrompt: () => promptToContent(blocks, live.agent.workspace),
        signal,
        turn: {
          authorize: createAuthorizer({ live, client, onGrant: (grant) => live.recorder.write({ type: "grant", grant }, true) }),
          workspace: clientWorkspace(live.agent.workspace, client, state.clientCapabilities, live.agent.id),
        },
      });
      return { stopReason };
    } catch (error) {
      throw failure(error, params.sessionId);
    }
  });

  app.onNotification(methods.agent.session.cancel, ({ params }) => {
    // Any attached client may cancel. An unknown or idle session is not an error (the turn may have just ended).
    try {
      checkScope(state, params.sessionId);
    } catch {
      return;
    }
    if (state.sessions.has(params.sessionId)) services.sessions.get(params.sessionId)?.agent.cancel();
  });
}
