/**
 * Getting the first turn ready while the agent is idle. After `initialize`
 * only the code `session/new` needs is loaded (it would be loaded by the
 * first `session/new` anyway), so a `session/new` sent right away is not
 * slowed by work it does not need. After a session opens, what its first
 * turn needs: the model client's SDK, provider module and a rehearsed reply,
 * the runtime's `fetch`, the tools' JSON Schemas. Callers schedule this after
 * their response is written, so no answer waits for it; a request arriving
 * meanwhile awaits the same loading (module imports and the model client's
 * own memo are shared). Failures are silent here: the request that needs the
 * code loads it again and reports what went wrong.
 * @module
 */
import { toolSpec } from "../engine/tool-specs.ts";
import { warmUpFetch } from "../runtime/model-fetch.ts";
import type { LiveSession } from "./live-session.ts";

let sessionCode: Promise<void> | undefined;

/** Loads the code of `session/new` (engine, tools, store); once per process. */
export function warmUpSessionCode(): Promise<void> {
  sessionCode ??= import("./start-session.ts").then(
    () => undefined,
    () => undefined,
  );
  return sessionCode;
}

/** Prepares what one session's first turn needs; cheap when already done. */
export async function warmUpSession(live: LiveSession): Promise<void> {
  for (const tool of live.agent.tools) toolSpec(tool);
  const { model } = live.agent;
  // Only a model reached over HTTP needs the runtime's fetch.
  if (!model.prepare) return;
  await model.prepare();
  // A turn that started meanwhile loads fetch itself; a warm-up request now would only compete with it.
  if (!live.agent.running && !live.turnOwner) await warmUpFetch();
}
