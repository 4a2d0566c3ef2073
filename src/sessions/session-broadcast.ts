/**
 * Telling every client attached to a session. Each piece of news is prepared
 * once per view (clients with the same `viewKey`) and the same output is sent
 * to every client of that view. A client that fails (gone, or too slow and
 * closed) is dropped from the session; the others and the turn carry on.
 * @module
 */
import { log } from "../runtime/log.ts";
import type { ClientOutput, LiveSession, SessionClient, SessionNews } from "./live-session.ts";

/** The attached clients (except `except`) grouped by view, in attachment order. */
export function clientsByView(live: LiveSession, except?: string): Map<string, SessionClient[]> {
  const views = new Map<string, SessionClient[]>();
  for (const client of live.clients()) {
    if (client.id === except) continue;
    const group = views.get(client.viewKey);
    if (group) group.push(client);
    else views.set(client.viewKey, [client]);
  }
  return views;
}

/**
 * Sends one view's output to each of its clients. Clients whose send completes
 * at once (a socket taking serialised text) cost no promise each; the
 * returned promises are those of clients still sending.
 */
export function sendToAll(live: LiveSession, clients: readonly SessionClient[], output: readonly ClientOutput[]): Promise<void>[] {
  const pending: Promise<void>[] = [];
  for (const client of clients) {
    const drop = (error: unknown) => {
      log.debug(`dropping client ${client.id} from ${live.id}`, error);
      live.detach(client.id);
    };
    try {
      const sending = client.send(live, output);
      if (sending) pending.push(sending.catch(drop));
    } catch (error) {
      drop(error);
    }
  }
  return pending;
}

/** Tells every attached client (except `except`) one piece of news, prepared once per view. */
export async function broadcast(live: LiveSession, news: SessionNews, except?: string): Promise<void> {
  const sends: Promise<void>[] = [];
  for (const clients of clientsByView(live, except).values()) {
    const output = clients[0]!.prepareNews(live, news);
    if (output.length > 0) sends.push(...sendToAll(live, clients, output));
  }
  await Promise.all(sends);
}

/** Tells every attached client a notice, or keeps it for the announcement that follows the response that opens the session. */
export function noticeToSession(live: LiveSession, text: string): void {
  if (live.holdNotice(text)) return;
  void broadcast(live, { type: "message", text: `${text}\n` });
}
