/**
 * Whether a session is open in this process or only stored (`session/status`):
 * read without side effects — nothing is opened, locked, attached or changed.
 * @module
 */
import type { AgentServices } from "./services.ts";
import { unknownSession } from "./session-error.ts";

/** `open` when the session is live in this process (for any client), `saved` when it is only stored; `not_found` otherwise. */
export async function sessionStatus(services: AgentServices, sessionId: string): Promise<"open" | "saved"> {
  if (services.sessions.get(sessionId)) return "open";
  if (await services.store.exists(sessionId)) return "saved";
  throw unknownSession(sessionId);
}
