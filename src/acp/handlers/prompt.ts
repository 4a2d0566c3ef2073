/**
 * `session/prompt` and `session/cancel`: run a built-in command, or a turn
 * (with prompt templates expanded) under this client's permissions and
 * capabilities; stream it to every attached client, and answer with the stop
 * reason only after every update of the turn was sent.
 * @module
 */
import { SessionBusyError } from "../../engine/session.ts";
import { ModelError } from "../../models/types.ts";
import { expandTemplate, parseSlashCommand } from "../commands/arguments.ts";
import { builtinCommand } from "../commands/builtin-commands.ts";
import { clientWorkspace } from "../client-workspace.ts";
import type { ConnectionState } from "../connection-state.ts";
import { internalError, sessionBusy, toRequestError } from "../errors.ts";
import { createAuthorizer } from "../permissions/authorizer.ts";
import { promptToContent } from "../prompt-content.ts";
import { methods, type AgentApp, type AgentContext, type ContentBlock, type PromptResponse } from "../sdk.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { attachedSession, checkScope } from "../session-access.ts";
import { broadcast } from "../../sessions/session-broadcast.ts";
import { sessionEmitter } from "../../sessions/session-emitter.ts";
import type { LiveSession } from "../../sessions/session-registry.ts";
import { setTitle, titleFromPrompt } from "../../sessions/live-title.ts";
import { refreshTools } from "../../sessions/session-mcp.ts";

/** `/name args` as the first text block of a prompt without attachments, if it is one. */
function slashCommand(prompt: readonly ContentBlock[]) {
  const [first, ...rest] = prompt;
  if (first?.type !== "text" || rest.some((b) => b.type === "image" || b.type === "audio")) return undefined;
  const parsed = parseSlashCommand(first.text);
  return parsed ? { name: parsed.name, args: parsed.rest, attachments: rest } : undefined;
}

function failure(error: unknown, sessionId: string): unknown {
  if (error instanceof SessionBusyError) return sessionBusy(sessionId);
  if (error instanceof ModelError) {
    return internalError(`Model request failed: ${error.message}`, {
      code: "model_error",
      ...(error.status === undefined ? {} : { status: error.status }),
    });
  }
  return toRequestError(error);
}

interface TurnRequest {
  live: LiveSession;
  services: AgentServices;
  state: ConnectionState;
  client: AgentContext;
  prompt: readonly ContentBlock[];
  signal: AbortSignal;
}

/** The prompt once this client owns the session's turn. */
async function runPrompt({ live, services, state, client, prompt, signal }: TurnRequest): Promise<PromptResponse> {
  const emit = sessionEmitter(live);
  let blocks = prompt;
  const command = slashCommand(prompt);
  if (command) {
    const builtin = builtinCommand(command.name);
    if (builtin) return await builtin(command.args, { live, client, services, emit });
    const template = live.templates.find((t) => t.name === command.name);
    if (template) blocks = [{ type: "text", text: expandTemplate(template.body, command.args) }, ...command.attachments];
  }
  await refreshTools(live);
  const content = await promptToContent(blocks, live.agent.workspace);
  // The other clients of a shared session see what was asked.
  for (const part of content) {
    const block: ContentBlock = part.type === "text" ? { type: "text", text: part.text } : { type: "image", data: part.data, mimeType: part.mimeType };
    await broadcast(live, { sessionUpdate: "user_message_chunk", content: block }, state.id);
  }
  if (!live.title) {
    const first = content.find((p) => p.type === "text");
    const title = first?.type === "text" ? titleFromPrompt(first.text) : undefined;
    if (title) await setTitle(live, title);
  }
  // `$/cancel_request` for this request cancels the turn like `session/cancel`.
  const onAbort = () => live.agent.cancel("the request was cancelled");
  signal.addEventListener("abort", onAbort, { once: true });
  const turn = live.agent.prompt(content, emit, {
    authorize: createAuthorizer({ live, client, onGrant: (grant) => live.recorder.write({ type: "grant", grant }, true) }),
    workspace: clientWorkspace(live.agent.workspace, client, state.clientCapabilities, live.agent.id),
  });
  live.turn = turn;
  try {
    return { stopReason: await turn };
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (live.turn === turn) delete live.turn;
  }
}

export function registerPrompt(app: AgentApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.prompt, async ({ params, client, signal }): Promise<PromptResponse> => {
    const live = attachedSession(services, state, params.sessionId);
    // One turn per session across every attached client; claimed before any await.
    if (live.agent.running || live.turnOwner) throw sessionBusy(params.sessionId);
    live.turnOwner = state.id;
    try {
      return await runPrompt({ live, services, state, client, prompt: params.prompt, signal });
    } catch (error) {
      throw failure(error, params.sessionId);
    } finally {
      if (live.turnOwner === state.id) delete live.turnOwner;
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
