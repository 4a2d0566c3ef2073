/**
 * Starts getting the first turn ready once an answer is on its way: the
 * warm-up runs on a later macrotask, after the SDK has serialised and
 * written the response, so neither `initialize` nor `session/new` waits for
 * it. Its module is imported then too, keeping it out of cold start.
 * @module
 */
import { restoreInteractiveJitWithin } from "../runtime/jit-policy.ts";
import type { LiveSession } from "../sessions/live-session.ts";
import { prepareSchemas, SESSION_SCHEMAS, TURN_SCHEMAS } from "./sdk.ts";

/** The JIT's start-up reluctance ends with the first turn, or this long after `initialize` (see jit-policy.ts). */
const JIT_RESTORE_MS = 2_000;

/** After this answer is written: load the code `session/new` needs, then build the SDK's schemas for opening sessions. */
export function warmUpAfterInitialize(): void {
  restoreInteractiveJitWithin(JIT_RESTORE_MS);
  setTimeout(() => {
    void import("../sessions/turn-warm-up.ts")
      .then((m) => m.warmUpSessionCode())
      .then(() => setTimeout(() => prepareSchemas(SESSION_SCHEMAS), 0))
      .catch(() => undefined);
  }, 0);
}

/** After this answer is written: build the SDK's schemas for turns and prepare the session's model client for its first prompt. */
export function warmUpAfterSessionOpen(live: LiveSession): void {
  setTimeout(() => {
    prepareSchemas(TURN_SCHEMAS);
    void import("../sessions/turn-warm-up.ts").then((m) => m.warmUpSession(live)).catch(() => undefined);
  }, 0);
}
