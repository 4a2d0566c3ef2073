/**
 * Starts getting the first turn ready once an answer is on its way: the
 * warm-up runs on a later macrotask, after the SDK has serialised and
 * written the response, so neither `initialize` nor `session/new` waits for
 * it. Its module is imported then too, keeping it out of cold start.
 * @module
 */
import type { LiveSession } from "../sessions/live-session.ts";
import { prepareSchemas } from "./sdk.ts";

/** After this answer is written: load the code `session/new` needs, then build the SDK's param schemas. */
export function warmUpAfterInitialize(): void {
  setTimeout(
    () =>
      void import("../sessions/turn-warm-up.ts")
        .then((m) => m.warmUpSessionCode())
        .then(() => setTimeout(prepareSchemas, 0))
        .catch(() => undefined),
    0,
  );
}

/** After this answer is written: prepare the session's model client for its first prompt. */
export function warmUpAfterSessionOpen(live: LiveSession): void {
  setTimeout(() => void import("../sessions/turn-warm-up.ts").then((m) => m.warmUpSession(live)).catch(() => undefined), 0);
}
