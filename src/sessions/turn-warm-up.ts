/**
 * Getting the first turn ready while the agent is idle: after `initialize`
 * the code that `session/new` and a turn need is loaded and the default
 * model's SDK and provider module with it; after `session/new`, that
 * session's own model client. Callers schedule this after their response is
 * written, so no answer waits for it; a request arriving meanwhile awaits
 * the same loading (module imports and the model client's own memo are
 * shared). Failures are silent here: the request that needs the code loads
 * it again and reports what went wrong.
 * @module
 */
import { toolSpec } from "../engine/tool-specs.ts";
import { warmUpFetch } from "../runtime/fetch-warm-up.ts";
import { builtinTools } from "../tools/builtin.ts";
import type { LiveSession } from "./live-session.ts";
import type { AgentServices } from "./services.ts";

const servicesWarmUps = new WeakMap<AgentServices, Promise<void>>();

/** Loads session and turn code and the default model's provider; once per services object. */
export function warmUpServices(services: AgentServices): Promise<void> {
  let done = servicesWarmUps.get(services);
  if (!done) {
    done = loadForServices(services).catch(() => undefined);
    servicesWarmUps.set(services, done);
  }
  return done;
}

async function loadForServices(services: AgentServices): Promise<void> {
  // The same lazy import `session/new` makes: its module graph (engine, tools, store) is then compiled.
  await import("./start-session.ts");
  for (const tool of builtinTools) toolSpec(tool);
  const choice = services.registry.pickDefault(services.options.model ?? services.config.settings.defaultModel);
  if ("kind" in choice) return;
  const client = await services.registry.createClient(choice);
  // Only a model reached over HTTP needs the runtime's fetch.
  if (client.prepare) await Promise.all([client.prepare(), warmUpFetch()]);
}

/** Prepares one session's model client (the one its first turn will call). */
export async function warmUpSession(live: LiveSession): Promise<void> {
  await live.agent.model.prepare?.();
}
