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

/**
 * The sink for one turn; a view first seen mid-turn starts from its first event.
 * An event that writes nothing and goes to clients that take it at once (the
 * streamed deltas) costs no promise.
 */
export function sessionEmitter(live: LiveSession): EventSink {
  const views = new Map<string, (event: EngineEvent) => ClientOutput[]>();
  const show = (event: EngineEvent): Promise<void> | undefined => {
    let sends: Promise<void>[] | undefined;
    for (const [key, clients] of clientsByView(live)) {
      let view = views.get(key);
      if (!view) views.set(key, (view = clients[0]!.watchTurn(live)));
      const output = view(event);
      if (output.length === 0) continue;
      const pending = sendToAll(live, clients, output);
      if (pending.length > 0) (sends ??= []).push(...pending);
    }
    return sends ? Promise.all(sends).then(() => undefined) : undefined;
  };
  return (event) => {
    try {
      const recorded = live.recorder.record(event, live.agent);
      return recorded ? recorded.then(() => show(event)) : show(event);
    } catch (error) {
      // A sink fails by rejecting, never by throwing at its caller.
      return Promise.reject(error);
    }
  };
}
