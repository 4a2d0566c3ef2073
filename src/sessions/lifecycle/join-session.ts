/**
 * A client joining a stored session (`session/load`, `session/resume`): the
 * one already live in this process, or the stored one brought back. Several
 * clients may join one session; each sees every update from then on.
 * @module
 */
import { realPath } from "../../runtime/files/fs.ts";
import type { StoredEntry } from "../../store/types.ts";
import type { LiveSession, SessionClient } from "../live-session.ts";
import { checkDirectory } from "./open-session.ts";
import { reviveSession } from "./revive-session.ts";
import type { AgentServices } from "../services.ts";
import { SessionError, storeFailure } from "../session-error.ts";
import { connectMcpServers } from "../session-mcp.ts";

/** Which session to join, where the client works, and the MCP servers it passes. */
export interface JoinRequest {
  sessionId: string;
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: readonly unknown[];
}

const canonical = (path: string) => realPath(path).catch(() => path);

/**
 * A client joining a session that is already open must name its cwd and, if
 * it names them, the same extra roots: the roots are the session's, and one
 * client may not widen them for the others (nor be told it has roots it has not).
 */
async function checkSameRoots(live: LiveSession, request: JoinRequest): Promise<void> {
  const { cwd, additionalDirectories } = request;
  await checkDirectory(cwd, "cwd");
  const [a, b] = await Promise.all([canonical(live.cwd), canonical(cwd)]);
  if (a !== b) throw new SessionError("invalid_params", `session ${live.id} belongs to ${live.cwd}, not ${cwd}`, { cwd, sessionCwd: live.cwd });
  if (additionalDirectories === undefined) return;
  for (const dir of additionalDirectories) await checkDirectory(dir, "additionalDirectories");
  const [requested, current] = await Promise.all([Promise.all(additionalDirectories.map(canonical)), Promise.all(live.additionalDirectories.map(canonical))]);
  const same = new Set(requested).size === new Set(current).size && requested.every((dir) => current.includes(dir));
  if (!same) {
    throw new SessionError(
      "invalid_params",
      `session ${live.id} is open with other additionalDirectories; a client joining it cannot change them`,
      { additionalDirectories, sessionAdditionalDirectories: live.additionalDirectories },
    );
  }
}

/**
 * Attaches `client` to the session; with `history`, also returns every
 * stored entry (the journal flushed first) so the client can be shown the
 * conversation. An empty list of MCP servers keeps what the session has.
 */
export async function joinSession(
  services: AgentServices,
  request: JoinRequest,
  client: SessionClient,
  options: { history: boolean },
): Promise<{ live: LiveSession; history?: StoredEntry[] }> {
  let live: LiveSession;
  for (;;) {
    let revived = false;
    live = await services.sessions.getOrOpen(request.sessionId, async () => {
      revived = true;
      return (await reviveSession(services, request)).live;
    });
    // A session opened for another caller was checked against that caller's cwd, not ours.
    if (!revived) await checkSameRoots(live, request);
    // Its last client may have left while we checked: then it is closing, and we open it again.
    if (services.sessions.get(request.sessionId) === live) break;
  }
  live.attach(client);
  if (request.mcpServers && request.mcpServers.length > 0) await connectMcpServers(live, request.mcpServers);
  if (!options.history) return { live };
  await live.recorder.journal.sync();
  try {
    return { live, history: (await services.store.read(live.id)).entries };
  } catch (error) {
    throw storeFailure(error, live.id);
  }
}
