/**
 * The engine's event sink for one turn of one session: every event is
 * written to the journal first (durable before the turn goes on), then shown
 * to the client in the form its capabilities call for.
 * @module
 */
import type { EventSink } from "../engine/events.ts";
import { TurnProjector } from "./projection.ts";
import { methods, type AgentContext, type ClientCapabilities } from "./sdk.ts";
import type { LiveSession } from "./session-registry.ts";

export function sessionEmitter(live: LiveSession, client: AgentContext, capabilities: ClientCapabilities): EventSink {
  const meta = capabilities._meta as Record<string, unknown> | undefined;
  const projector = new TurnProjector({
    terminalOutput: capabilities.terminal !== true && meta?.terminal_output === true,
    compaction: Boolean((capabilities as { session?: { compaction?: unknown } }).session?.compaction),
    cwd: live.cwd,
  });
  return async (event) => {
    await live.recorder.record(event, live.agent);
    const update = projector.project(event);
    if (update) await client.notify(methods.client.session.update, { sessionId: live.agent.id, update });
  };
}
