/**
 * Sending a session's updates to every client attached to it. A client that
 * fails (gone, or too slow and closed) is dropped from the session; the
 * others and the turn carry on.
 * @module
 */
import { log } from "../runtime/log.ts";
import { methods, type SessionUpdate } from "../acp/sdk.ts";
import type { LiveSession, Subscriber } from "./session-registry.ts";

export async function notifySubscriber(live: LiveSession, subscriber: Subscriber, update: SessionUpdate): Promise<void> {
  try {
    await subscriber.client.notify(methods.client.session.update, { sessionId: live.agent.id, update });
  } catch (error) {
    log.debug(`dropping client ${subscriber.id} from ${live.agent.id}`, error);
    live.subscribers.delete(subscriber.id);
  }
}

/** Sends one update to every attached client (except `except`), in parallel. */
export async function broadcast(live: LiveSession, update: SessionUpdate, except?: string): Promise<void> {
  await Promise.all([...live.subscribers.values()].filter((s) => s.id !== except).map((s) => notifySubscriber(live, s, update)));
}
