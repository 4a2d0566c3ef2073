/**
 * The engine's event sink for one turn of one session: every event is
 * written to the journal first (durable before the turn goes on), then shown
 * to each attached client in the form its capabilities call for.
 * @module
 */
import type { EventSink } from "../engine/events.ts";
import { TurnProjector } from "../acp/projection.ts";
import type { ClientCapabilities } from "../acp/sdk.ts";
import { notifySubscriber } from "./session-broadcast.ts";
import type { LiveSession } from "./session-registry.ts";

function projectorFor(capabilities: ClientCapabilities, cwd: string): TurnProjector {
  const meta = capabilities._meta as Record<string, unknown> | undefined;
  return new TurnProjector({
    terminalOutput: capabilities.terminal !== true && meta?.terminal_output === true,
    compaction: Boolean((capabilities as { session?: { compaction?: unknown } }).session?.compaction),
    cwd,
  });
}

export function sessionEmitter(live: LiveSession): EventSink {
  const projectors = new Map<string, TurnProjector>();
  return async (event) => {
    await live.recorder.record(event, live.agent);
    await Promise.all(
      [...live.subscribers.values()].map(async (subscriber) => {
        let projector = projectors.get(subscriber.id);
        if (!projector) projectors.set(subscriber.id, (projector = projectorFor(subscriber.capabilities, live.cwd)));
        const update = projector.project(event);
        if (update) await notifySubscriber(live, subscriber, update);
      }),
    );
  };
}
