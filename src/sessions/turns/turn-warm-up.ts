/**
 * Getting a session's first turn ready while the agent is idle: the model
 * client's SDK, provider module and a rehearsed reply, the runtime's
 * `fetch`, the tools' JSON Schemas. Callers run this once the answer that
 * opened the session is written, so no answer waits for it; a prompt
 * arriving meanwhile awaits the same loading (module imports and the model
 * client's own memo are shared). Failures are silent here: the request that
 * needs the code loads it again and reports what went wrong.
 * @module
 */
import { toolSpec } from "../../engine/tool-specs.ts";
import { warmUpFetch } from "../../runtime/fetch/model-fetch.ts";
import type { LiveSession } from "../live-session.ts";

/** Prepares what one session's first turn needs; cheap when already done. */
export async function warmUpSession(live: LiveSession): Promise<void> {
  for (const tool of live.agent.tools) toolSpec(tool);
  const { model } = live.agent;
  // Only a model reached over HTTP needs the runtime's fetch.
  if (!model.prepare) return;
  await model.prepare();
  // A turn that started meanwhile loads fetch itself; a warm-up request now would only compete with it.
  if (!live.busy) await warmUpFetch();
}
