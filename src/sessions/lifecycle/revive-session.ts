/**
 * Bringing a stored session back to life (load, resume): its journal
 * reopened under its lock, its state restored.
 * @module
 */
import { realPath } from "../../runtime/files/fs.ts";
import type { LoadedSession, SessionJournal } from "../../store/types.ts";
import { checkDirectory, openSession } from "./open-session.ts";
import type { AgentServices } from "../services.ts";
import { restoreState } from "../journal/session-restore.ts";
import type { LiveSession } from "../live-session.ts";
import { SessionError, storeFailure } from "../session-error.ts";

async function sameDirectory(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [ra, rb] = await Promise.all([realPath(a).catch(() => a), realPath(b).catch(() => b)]);
  return ra === rb;
}

/** Which stored session to bring back, and where the client works. */
export interface ReviveRequest {
  sessionId: string;
  cwd: string;
  additionalDirectories?: string[];
}

/**
 * Opens a stored session (taking its lock) and builds the live session from
 * it. The client's cwd must be the session's; a missing directory is
 * reported as such.
 */
export async function reviveSession(services: AgentServices, request: ReviveRequest): Promise<{ live: LiveSession; loaded: LoadedSession }> {
  let opened: LoadedSession & { journal: SessionJournal };
  try {
    opened = await services.store.open(request.sessionId);
  } catch (error) {
    throw storeFailure(error, request.sessionId);
  }
  try {
    await checkSessionDirectory(opened, request.cwd);
    const restored = restoreState(opened.entries);
    const live = await openSession(services, {
      cwd: opened.header.cwd,
      additionalDirectories: request.additionalDirectories ?? opened.header.additionalDirectories,
      id: opened.header.id,
      restored,
      journal: async () => opened.journal,
    });
    for (const warning of [...opened.warnings, ...restored.notices]) live.holdNotice(`Session file: ${warning}`);
    return { live, loaded: opened };
  } catch (error) {
    await opened.journal.close();
    throw error;
  }
}

async function checkSessionDirectory(loaded: LoadedSession, requestedCwd: string): Promise<void> {
  const stored = loaded.header.cwd;
  await checkDirectory(requestedCwd, "cwd");
  if (!(await sameDirectory(stored, requestedCwd))) {
    throw new SessionError("invalid_params", `session ${loaded.header.id} belongs to ${stored}, not ${requestedCwd}`, { cwd: requestedCwd, sessionCwd: stored });
  }
}
