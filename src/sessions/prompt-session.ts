/**
 * One prompt of one client: the session's single turn claimed for it, then
 * either a built-in command or a model turn — tools made ready, the prompt
 * shown to the other clients, a title taken from the first prompt, every
 * event recorded and shown to each attached client.
 * @module
 */
import type { EventSink, StopReason } from "../engine/events.ts";
import type { TurnOptions } from "../engine/session.ts";
import type { ImagePart, TextPart } from "../models/types.ts";
import { setTitle, titleFromPrompt } from "./live-title.ts";
import type { LiveSession } from "./live-session.ts";
import { broadcast } from "./session-broadcast.ts";
import { sessionEmitter } from "./session-emitter.ts";
import { SessionError } from "./session-error.ts";
import { refreshTools } from "./session-mcp.ts";

/** What the client asks for, in the terms of this layer. */
export interface PromptRequest {
  /** The connection that sends the prompt; it owns the turn. */
  clientId: string;
  /** A built-in command to run instead of a model turn; it gets the turn's event sink. */
  command?: (emit: EventSink) => Promise<StopReason>;
  /** Reads the prompt as the model's user message; called once the session's tools are ready. */
  readPrompt(): Promise<Array<TextPart | ImagePart>>;
  /** Cancels the turn like a cancel from any client. */
  signal: AbortSignal;
  /** How this client's turn asks for permissions and reaches files and terminals. */
  turn: TurnOptions;
}

/** Runs one prompt; refuses (`busy`) while another turn of the session runs. */
export async function promptSession(live: LiveSession, request: PromptRequest): Promise<StopReason> {
  // One turn per session across every attached client; claimed before any await.
  if (live.agent.running || live.turnOwner) throw new SessionError("busy", "session is already processing a prompt", { sessionId: live.agent.id });
  live.turnOwner = request.clientId;
  try {
    return await runPrompt(live, request);
  } finally {
    if (live.turnOwner === request.clientId) delete live.turnOwner;
  }
}

async function runPrompt(live: LiveSession, request: PromptRequest): Promise<StopReason> {
  const emit = sessionEmitter(live);
  if (request.command) return await request.command(emit);
  await refreshTools(live);
  const content = await request.readPrompt();
  // The other clients of a shared session see what was asked.
  for (const part of content) await broadcast(live, { type: "prompt", part }, request.clientId);
  if (!live.title) {
    const first = content.find((p) => p.type === "text");
    const title = first?.type === "text" ? titleFromPrompt(first.text) : undefined;
    if (title) await setTitle(live, title);
  }
  // Cancelling the request cancels the turn like a cancel from any client.
  const onAbort = () => live.agent.cancel("the request was cancelled");
  request.signal.addEventListener("abort", onAbort, { once: true });
  const turn = live.agent.prompt(content, emit, request.turn);
  live.turn = turn;
  try {
    return await turn;
  } finally {
    request.signal.removeEventListener("abort", onAbort);
    if (live.turn === turn) delete live.turn;
  }
}
