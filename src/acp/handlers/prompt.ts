/**
 * `session/prompt` and `session/cancel`: run a turn with this client's
 * permissions and capabilities, stream its events as `session/update`, and
 * answer with the stop reason only after every update of the turn was sent.
 * @module
 */
import { SessionBusyError } from "../../engine/session.ts";
import { ModelError } from "../../models/types.ts";
import { clientWorkspace } from "../client-workspace.ts";
import type { ConnectionState } from "../connection-state.ts";
import { internalError, sessionBusy, sessionNotFound, toRequestError } from "../errors.ts";
import { createAuthorizer } from "../permissions/authorizer.ts";
import { TurnProjector } from "../projection.ts";
import { promptToContent } from "../prompt-content.ts";
import { methods, type AgentApp, type PromptResponse } from "../sdk.ts";
import type { AgentServices } from "../services.ts";

export function registerPrompt(app: AgentApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.prompt, async ({ params, client, signal }): Promise<PromptResponse> => {
    const live = services.sessions.get(params.sessionId);
    if (!live) throw sessionNotFound(params.sessionId);
    if (live.agent.running) throw sessionBusy(params.sessionId);
    const content = await promptToContent(params.prompt, live.agent.workspace);

    const capabilities = state.clientCapabilities;
    const projector = new TurnProjector({
      terminalOutput: capabilities.terminal !== true && (capabilities._meta as Record<string, unknown> | undefined)?.terminal_output === true,
      cwd: live.cwd,
    });
    // `$/cancel_request` for this request cancels the turn like `session/cancel`.
    const onAbort = () => live.agent.cancel("the request was cancelled");
    signal.addEventListener("abort", onAbort, { once: true });
    const turn = live.agent.prompt(
      content,
      async (event) => {
        const update = projector.project(event);
        if (update) await client.notify(methods.client.session.update, { sessionId: live.agent.id, update });
      },
      {
        authorize: createAuthorizer({ live, client }),
        workspace: clientWorkspace(live.agent.workspace, client, capabilities, live.agent.id),
      },
    );
    live.turn = turn;
    try {
      return { stopReason: await turn };
    } catch (error) {
      if (error instanceof SessionBusyError) throw sessionBusy(params.sessionId);
      if (error instanceof ModelError) {
        throw internalError(`Model request failed: ${error.message}`, {
          code: "model_error",
          ...(error.status === undefined ? {} : { status: error.status }),
        });
      }
      throw toRequestError(error);
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (live.turn === turn) delete live.turn;
    }
  });

  app.onNotification(methods.agent.session.cancel, ({ params }) => {
    // Cancelling an unknown or idle session is not an error (the turn may have just ended).
    services.sessions.get(params.sessionId)?.agent.cancel();
  });
}
