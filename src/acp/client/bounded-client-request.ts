/**
 * One request to the client that a person answers (a permission request, a
 * question form): bounded in time, and cancelled with the turn that asked
 * (the pending request is cancelled with `$/cancel_request`). It never
 * throws: how it ended is the caller's to word.
 * @module
 */
import type { LiveSession } from "../../sessions/live-session.ts";
import { withDeadline } from "../../runtime/deadline-signal.ts";

/** How long a person has to answer, from the session's settings (`permissionTimeoutSeconds`, default 600). */
export function answerTimeoutMs(live: LiveSession): number {
  return (live.settings.permissionTimeoutSeconds ?? 600) * 1000;
}

export type BoundedAnswer<T> = { ended: "answered"; response: T } | { ended: "cancelled" } | { ended: "timeout"; seconds: number } | { ended: "failed"; message: string };

/**
 * Runs `send` with a signal that aborts when `signal` (the turn's) does or
 * `timeoutMs` passes; `send` hands it to the SDK as `cancellationSignal`.
 */
export async function boundedClientRequest<T>(signal: AbortSignal, timeoutMs: number, send: (cancellation: AbortSignal) => Promise<T>): Promise<BoundedAnswer<T>> {
  const bounded = withDeadline(signal, timeoutMs);
  try {
    return { ended: "answered", response: await send(bounded.signal) };
  } catch (error) {
    if (signal.aborted) return { ended: "cancelled" };
    if (bounded.timedOut()) return { ended: "timeout", seconds: Math.round(timeoutMs / 1000) };
    return { ended: "failed", message: error instanceof Error ? error.message : String(error) };
  } finally {
    bounded.release();
  }
}
