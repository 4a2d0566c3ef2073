/**
 * Whether a session is open in this process or only stored (`session/status`):
 * read without side effects — nothing is opened, locked, attached or changed.
 * An open session also names the commands it runs in the background.
 * @module
 */
import type { AgentServices } from "./services.ts";
import { unknownSession } from "./session-error.ts";

/** A background command as `session/status` lists it. */
export interface BackgroundCommandStatus {
  id: string;
  command: string;
  /** ISO time it started. */
  startedAt: string;
  running: boolean;
  /** The editor terminal it runs in, if any. */
  terminalId?: string;
}

/** The status of a session, with its background commands while it has some. */
export interface SessionStatus {
  status: "open" | "saved";
  backgroundCommands?: BackgroundCommandStatus[];
}

/** `open` when the session is live in this process (for any client), `saved` when it is only stored; `not_found` otherwise. */
export async function sessionStatus(services: AgentServices, sessionId: string): Promise<SessionStatus> {
  const live = services.sessions.get(sessionId);
  if (live) {
    const commands = live.backgroundCommands().map((c) => ({
      id: c.id,
      command: c.command,
      startedAt: new Date(c.startedAt).toISOString(),
      running: c.exit === undefined,
      ...(c.terminalId !== undefined ? { terminalId: c.terminalId } : {}),
    }));
    return commands.length > 0 ? { status: "open", backgroundCommands: commands } : { status: "open" };
  }
  if (await services.store.exists(sessionId)) return { status: "saved" };
  throw unknownSession(sessionId);
}
