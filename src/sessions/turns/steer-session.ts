/**
 * A steering message: it joins the turn that runs at the turn's next
 * boundary between model calls (`injected`). When no turn can take it (the
 * session is idle, runs a built-in command, or its turn is stopping or has
 * given its last answer) it is either left to the caller (`promptRequired`,
 * when asked for) or run as a prompt of its own, after whatever holds the
 * turn (`startedNewTurn`, answered once that turn starts).
 * @module
 */
import { log } from "../../runtime/log.ts";
import { redact } from "../../runtime/secrets.ts";
import type { LiveSession } from "../live-session.ts";
import { promptSession, type PromptRequest } from "./prompt-session.ts";
import { broadcast } from "../session-broadcast.ts";
import type { AgentServices } from "../services.ts";

/** What a steering message asks for, in the terms of this layer. */
export interface SteerRequest extends Omit<PromptRequest, "starting" | "echoToSender" | "size"> {
  /** Bytes the message expands into (checked against its budget already): what the bound of waiting messages counts. */
  size: number;
  /** `promptRequired`: when no turn can take the message, run nothing (and read nothing) and say so. */
  idleBehavior?: "promptRequired";
  /** Called when the new turn starts: resolves once the answer saying so is written, so that turn's updates follow it. */
  answerWritten(): Promise<void>;
}

/** How a steering message was taken; `cancelled`: the turn it was to start was dropped before it started. */
export type SteerOutcome = "injected" | "startedNewTurn" | "promptRequired" | "cancelled";

/** The outcome, and when the turn it started (if any) is over. */
export interface SteerResult {
  outcome: SteerOutcome;
  turnOver: Promise<void>;
}

/** Steers `live`'s running turn, or starts or declines a turn, as described above. */
export async function steerSession(services: AgentServices, live: LiveSession, request: SteerRequest): Promise<SteerResult> {
  const over = Promise.resolve();
  let readPrompt = () => request.readPrompt();
  if (live.takesSteering) {
    // Refused for room before anything is read; read only when a turn can take it.
    live.checkSteeringRoom(request.size);
    const content = await request.readPrompt();
    if (live.inject(content)) return { outcome: "injected", turnOver: over };
    readPrompt = () => Promise.resolve(content);
  }
  if (request.idleBehavior === "promptRequired") return { outcome: "promptRequired", turnOver: over };
  let started!: () => void;
  const startedNow = new Promise<"started">((resolve) => (started = () => resolve("started")));
  const turn = promptSession(services, live, {
    ...request,
    readPrompt,
    size: () => request.size,
    // Nobody sent a `session/prompt` for it: every client, the steering one included, is shown what started it.
    echoToSender: true,
    starting: () => {
      const written = request.answerWritten();
      started();
      return written;
    },
  });
  // A failure before the turn starts is the request's own; after, the clients are told.
  const first = await Promise.race([startedNow, turn]);
  const turnOver = turn.then(
    () => undefined,
    (error: unknown) => reportFailure(live, error),
  );
  return { outcome: first === "started" ? "startedNewTurn" : "cancelled", turnOver };
}

/** A turn that no request will answer failed: every client is told, and it is logged. */
function reportFailure(live: LiveSession, error: unknown): void {
  log.warn(`session ${live.id}: a turn started by a steering message failed`, error);
  const message = error instanceof Error ? error.message : String(error);
  void broadcast(live, { type: "message", text: `The turn started by a steering message failed: ${redact(message)}\n` });
}
