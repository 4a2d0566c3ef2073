/**
 * The engine's event sink for one turn of one session: every event is
 * written to the journal first (durable before the turn goes on), then shown
 * to the attached clients. Each view (clients with the same `viewKey`) has one
 * view of the turn, so an event is projected and serialised once per view,
 * whatever the number of clients.
 * @module
 */
import type { EngineEvent, EventSink } from "../engine/events.ts";
import type { ClientOutput, LiveSession } from "./live-session.ts";
import { clientsByView, sendToAll } from "./session-broadcast.ts";

/** The sink for one turn; a view first seen mid-turn starts from its first event. */
export function sessionEmitter(live: LiveSession): EventSink {
  const views = new Map<string, (event: EngineEvent) => ClientOutput[]>();
  return async (event) => {
    await live.recorder.record(event, live.agent);
    const sends: Promise<void>[] = [];
    for (const [key, clients] of clientsByView(live)) {
      let view = views.get(key);
      if (!view) views.set(key, (view = clients[0]!.watchTurn(live)));
      const output = view(event);
      if (output.length > 0) sends.push(...sendToAll(live, clients, output));
    }
    await Promise.all(sends);
  };
}
