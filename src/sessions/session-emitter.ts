/**
 * The engine's event sink for one turn of one session: every event is
 * written to the journal first (durable before the turn goes on), then shown
 * to each attached client through its own view of the turn.
 * @module
 */
import type { EngineEvent, EventSink } from "../engine/events.ts";
import type { LiveSession } from "./live-session.ts";
import { deliver } from "./session-broadcast.ts";

/** The sink for one turn; a client attached mid-turn gets its view from its first event on. */
export function sessionEmitter(live: LiveSession): EventSink {
  const views = new Map<string, (event: EngineEvent) => Promise<void>>();
  return async (event) => {
    await live.recorder.record(event, live.agent);
    await Promise.all(
      [...live.subscribers.values()].map(async (client) => {
        let view = views.get(client.id);
        if (!view) views.set(client.id, (view = client.watchTurn(live)));
        await deliver(live, client, () => view(event));
      }),
    );
  };
}
