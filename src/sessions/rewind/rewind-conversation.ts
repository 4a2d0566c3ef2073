/**
 * Rewinding a conversation to before one of its user messages: that message
 * and everything after it leave the conversation — what the model is sent
 * next, what `session/load` replays, what a compaction may summarise — and
 * the session goes on under the same id. The point is checked before
 * anything stops (a point that names nothing changes nothing); then the
 * running turn is cancelled, waiting prompts are dropped, and the rewind
 * runs holding the session's turn, so no prompt can start in between.
 * @module
 */
import type { LiveSession } from "../live-session.ts";
import type { AgentServices } from "../services.ts";
import { restoreState } from "../journal/session-restore.ts";
import { SessionError } from "../session-error.ts";
import { findPoint, rewindPoints, type PointRequest, type RewindPoint } from "./rewind-points.ts";

/** Who asks, and for which point. */
export interface RewindRequest {
  clientId: string;
  /** Aborting it before the rewind holds the session's turn drops it (nothing changes). */
  signal: AbortSignal;
  point: PointRequest | ((points: readonly RewindPoint[]) => RewindPoint);
}

/** The session's rewind points as its journal holds them now. */
export async function livePoints(services: AgentServices, live: LiveSession): Promise<RewindPoint[]> {
  return await rewindPoints((await services.store.read(live.id)).entries);
}

/** Rewinds `live` to before the point; returns it. Refused (`invalid_params`) when the point names no message of the conversation. */
export async function rewindConversation(services: AgentServices, live: LiveSession, request: RewindRequest): Promise<RewindPoint> {
  const pick = typeof request.point === "function" ? request.point : (points: readonly RewindPoint[]) => findPoint(points, request.point as PointRequest);
  pick(await livePoints(services, live));
  live.cancel("the conversation is being rewound");
  // Found again once the turn is the rewind's: the cancelled turn may have recorded more, but never removed the point.
  const done = await live.claimTurn({ clientId: request.clientId, signal: request.signal, steerable: false }, () => rewindHeld(services, live, pick));
  if (done === "cancelled") throw new SessionError("internal", "the rewind was cancelled before it ran; nothing was rewound", { sessionId: live.id });
  return done;
}

/** Rewinds `live` to before the point `pick` chooses; the caller holds the session's turn (a built-in command does). */
export async function rewindHeld(services: AgentServices, live: LiveSession, pick: (points: readonly RewindPoint[]) => RewindPoint): Promise<RewindPoint> {
  await live.recorder.settle();
  const stored = (await services.store.read(live.id)).entries;
  const point = pick(await rewindPoints(stored));
  await live.recorder.rewound(point.from, point.messageId);
  live.replaceHistory(restoreState([...stored, { type: "rewound", messageId: point.messageId, from: point.from }]).history);
  return point;
}
