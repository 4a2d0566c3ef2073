/**
 * One prompt of one client: the session's single turn claimed for it (after
 * the prompts queued before it), then either a built-in command or a model
 * turn (with a prompt template expanded or a skill loaded) — tools made
 * ready, the prompt shown to the other clients (and to its own client too
 * when it waited in the queue), a title taken from the first prompt, every
 * event recorded and shown to each attached client. Commands, templates and
 * skills are resolved when the prompt's turn starts, as if it were sent then.
 * @module
 */
import type { EventSink, StopReason } from "../../engine/events.ts";
import type { TurnOptions } from "../../engine/session.ts";
import type { ImagePart, TextPart } from "../../models/types.ts";
import { builtinCommand } from "../commands/builtin-commands.ts";
import { invokeFileCommand, type Invocation } from "../commands/command-invocation.ts";
import { setTitle, titleFromPrompt } from "../live-title.ts";
import type { LiveSession } from "../live-session.ts";
import { broadcast } from "../session-broadcast.ts";
import { sessionEmitter } from "../session-emitter.ts";
import { refreshContext } from "../session-context.ts";
import { refreshTools } from "../session-mcp.ts";
import { refreshSetup } from "../setup/session-setup.ts";
import type { ClaimedTurn } from "../live-session.ts";
import type { AgentServices } from "../services.ts";
import { parseSlashCommand } from "../commands/slash-arguments.ts";
import { promptBudget } from "./prompt-budget.ts";
import { newMessageId } from "../../engine/ids.ts";
import { SessionError } from "../session-error.ts";
import type { EditorFiles } from "../checkpoints/restore-files.ts";
import type { TrustAsker } from "../hooks/session-hooks.ts";

/** What the client asks for, in the terms of this layer. */
export interface PromptRequest {
  /** The connection that sends the prompt; it owns the turn. */
  clientId: string;
  /** The prompt's leading text when it may be a slash command (`/name args`). */
  slashText?: string;
  /**
   * Reads the prompt as the model's user message; called once the session's
   * tools are ready. `leadingText`, when given, replaces the prompt's leading
   * text (an expanded template).
   */
  readPrompt(leadingText?: string): Promise<Array<TextPart | ImagePart>>;
  /** Drops the prompt while it waits in the queue, and stops its turn (that turn alone) once it runs. */
  signal: AbortSignal;
  /** How this client's turn asks for permissions and reaches files and terminals. */
  turn: TurnOptions;
  /** Bytes the prompt expands into, counted against the queue's bound should it wait and against its own budget. */
  size?: () => number;
  /** Show the prompt to its own client as well, even when it started at once (a turn no `session/prompt` asked for). */
  echoToSender?: boolean;
  /** Called once the turn is this prompt's, before anything of it is shown; awaited. */
  starting?(): Promise<void> | void;
  /** The id the prompt's user message is recorded under (the client's own, checked to be new to the session); minted when absent. */
  messageId?: string;
  /** Told the id the prompt's user message got, once it joins the conversation (a built-in command has none). */
  joined?(messageId: string): void;
  /** The editor's side of the files, when this client reads or writes them for the agent (`/undo` restores through it). */
  editor?: EditorFiles;
  /** Asks this client whether the project's hooks may run (absent: nobody can answer, so they do not). */
  askTrust?: TrustAsker;
}

/** Runs one prompt, after the prompts queued before it; `cancelled` when it is dropped from the queue. */
export async function promptSession(services: AgentServices, live: LiveSession, request: PromptRequest): Promise<StopReason> {
  const command = request.slashText === undefined ? undefined : parseSlashCommand(request.slashText);
  // Built-in commands are fixed, so whether one runs is known now; nothing can be steered into them.
  const steerable = !(command && builtinCommand(command.name));
  const claim = { clientId: request.clientId, signal: request.signal, steerable, ...(request.size ? { size: request.size } : {}) };
  return await live.claimTurn(claim, (turn) => runPrompt(services, live, request, turn));
}

async function runPrompt(services: AgentServices, live: LiveSession, request: PromptRequest, turn: ClaimedTurn): Promise<StopReason> {
  const emit = sessionEmitter(live);
  // Command files and skills as they are now: one added or edited since the last prompt runs as it is on disk.
  // Checked alongside the context files and tools below (each rebuilds the system prompt from the session's
  // state as it is then, so the order they finish in does not matter); a command waits for it first.
  const setupChecked = refreshSetup(live);
  const command = request.slashText === undefined ? undefined : parseSlashCommand(request.slashText);
  let invocation: Invocation | undefined;
  if (command) {
    await setupChecked;
    const builtin = builtinCommand(command.name);
    if (builtin) {
      if (turn.signal.aborted) return "cancelled";
      await request.starting?.();
      return await builtin(command.rest, { live, services, emit, ...(request.editor ? { editor: request.editor } : {}) });
    }
    // What a command's `@path`s embed spends what the prompt's own content left of its budget.
    const left = Math.max(0, promptBudget(live.agent.model.info.contextWindow) - (request.size?.() ?? 0));
    invocation = await invokeFileCommand(live, command.name, command.rest, left);
    if (invocation?.kind === "answer") {
      if (turn.signal.aborted) return "cancelled";
      await request.starting?.();
      await broadcast(live, { type: "message", text: invocation.text });
      return "end_turn";
    }
  }
  // A client's id names one message of the session: one already used would make a rewind point ambiguous.
  if (request.messageId !== undefined && live.recorder.hasMessage(request.messageId)) {
    throw new SessionError("invalid_params", "messageId: the session already has a message with this id", { field: "messageId" });
  }
  await Promise.all([setupChecked, refreshTools(live), refreshContext(live)]);
  const content = await request.readPrompt(invocation?.text);
  // Files the command embeds follow its text (which `readPrompt` put first), before the prompt's own attachments.
  if (invocation?.kind === "prompt" && invocation.attachments.length > 0) content.splice(invocation.text.trim() === "" ? 0 : 1, 0, ...invocation.attachments);
  // The session's hooks: trust in the project's settled, SessionStart once, UserPromptSubmit on every prompt.
  const hooked = live.hooks ? await (await import("../hooks/prompt-hooks.ts")).promptHooks(live.hooks, content, request.askTrust, turn.signal) : undefined;
  // A prompt stopped while it was getting ready (its client may be gone) starts no turn: nobody would stop it.
  if (turn.signal.aborted) return "cancelled";
  if (hooked?.refused !== undefined) {
    // Refused by a hook: the prompt never joins the conversation; the user reads why.
    await request.starting?.();
    await broadcast(live, { type: "message", text: hooked.refused });
    return "end_turn";
  }
  // From here the prompt joins the conversation: a stop now still records it (the turn ends at once, `cancelled`).
  await request.starting?.();
  // The other clients of a shared session see what was asked; its own client too when it did not start when sent.
  const except = turn.waited || request.echoToSender ? undefined : request.clientId;
  for (const part of content) await broadcast(live, { type: "prompt", part }, except);
  if (!live.title) {
    const first = content.find((p) => p.type === "text");
    const title = first?.type === "text" ? titleFromPrompt(first.text) : undefined;
    // Durable before the turn is answered, not before the model is asked (see SessionRecorder).
    if (title) await setTitle(live, title, { ahead: true });
  }
  const messageId = request.messageId ?? newMessageId();
  request.joined?.(messageId);
  // The prompt and title written ahead are durable before the turn ends and is answered; stopping the claim stops it.
  return await live.runTurn(content, emit, { ...request.turn, messageId });
}
