/**
 * Getting the next request ready once an answer is written: callers run
 * these from the connection guard's `afterAnswer`, so neither `initialize`
 * nor the answer that opened a session waits for them. A request arriving
 * meanwhile awaits the same loading (module imports are shared).
 * @module
 */
import { restoreInteractiveJitWithin } from "../../runtime/host/jit-policy.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import { prepareSchemas, SESSION_SCHEMAS, TURN_SCHEMAS } from "../sdk.ts";

/** The JIT's start-up reluctance ends with the first turn, or this long after `initialize` (see jit-policy.ts). */
const JIT_RESTORE_MS = 2_000;

/**
 * The one thing done after `initialize` is answered: load the handlers of
 * every other method (they bring the sessions layer, engine and tools), then
 * build the SDK's schemas for opening sessions. `loadHandlers` never rejects.
 */
export function warmUpAfterInitialize(loadHandlers: () => Promise<void>): void {
  restoreInteractiveJitWithin(JIT_RESTORE_MS);
  void loadHandlers().then(() => prepareSchemas(SESSION_SCHEMAS));
}

/** After a session opened: build the SDK's schemas for turns and prepare the session's model client for its first prompt. */
export function warmUpAfterSessionOpen(live: LiveSession): void {
  prepareSchemas(TURN_SCHEMAS);
  void import("../../sessions/turns/turn-warm-up.ts").then((m) => m.warmUpSession(live)).catch(() => undefined);
}
