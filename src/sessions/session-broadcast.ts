/**
 * Telling every client attached to a session. A client that fails (gone, or
 * too slow and closed) is dropped from the session; the others and the turn
 * carry on.
 * @module
 */
import { log } from "../runtime/log.ts";
import type { LiveSession, SessionClient, SessionNews } from "./live-session.ts";

/** Runs one delivery to one client; a failure drops that client from the session. */
export async function deliver(live: LiveSession, client: SessionClient, send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (error) {
    log.debug(`dropping client ${client.id} from ${live.agent.id}`, error);
    live.subscribers.delete(client.id);
  }
}

/** Tells every attached client (except `except`) one piece of news, in parallel. */
export async function broadcast(live: LiveSession, news: SessionNews, except?: string): Promise<void> {
  await Promise.all([...live.subscribers.values()].filter((c) => c.id !== except).map((c) => deliver(live, c, () => c.tell(live, news))));
}
