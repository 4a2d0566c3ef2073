/**
 * Starting a session: a new one (`session/new`), or a fork of a stored one
 * with a copy of its history. Either way the session is built, stored,
 * registered, given the client's MCP servers and attached to the client.
 * @module
 */
import type { LiveSession, SessionClient } from "../live-session.ts";
import { openSession } from "./open-session.ts";
import type { AgentServices } from "../services.ts";
import { storeFailure } from "../session-error.ts";
import { connectMcpServers } from "../session-mcp.ts";
import { undamagedEntries } from "../journal/session-entry-check.ts";
import { restoreState } from "../journal/session-restore.ts";
import { currentModelSpec } from "../session-settings.ts";

/** Where a new session works, and the MCP servers the client passes with it. */
export interface StartRequest {
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: readonly unknown[];
}

/**
 * Registers a session that was just built and stored, writes its first
 * entry, connects its MCP servers and attaches the client. When a step fails
 * the session is released at once: attached to nobody, nothing else would
 * ever close its journal.
 */
async function welcome(
  services: AgentServices,
  live: LiveSession,
  firstEntry: Parameters<LiveSession["recorder"]["write"]>[0],
  mcpServers: readonly unknown[] | undefined,
  client: SessionClient,
): Promise<LiveSession> {
  services.sessions.add(live);
  try {
    await live.recorder.write(firstEntry, true);
    await connectMcpServers(live, mcpServers);
  } catch (error) {
    await services.sessions.release(live.id).catch(() => undefined);
    throw error;
  }
  live.attach(client);
  return live;
}

/** A new, empty session in `cwd`, attached to `client`. */
export async function startSession(services: AgentServices, request: StartRequest, client: SessionClient): Promise<LiveSession> {
  const live = await openSession(services, {
    cwd: request.cwd,
    ...(request.additionalDirectories ? { additionalDirectories: request.additionalDirectories } : {}),
    journal: (id) => services.store.create({ id, cwd: request.cwd, additionalDirectories: request.additionalDirectories ?? [] }),
  });
  const config = { type: "config", mode: live.mode, model: currentModelSpec(live), thinking: live.agent.thinking } as const;
  return await welcome(services, live, config, request.mcpServers, client);
}

/** A new session in `cwd` with a copy of a stored session's history, titled "Fork of …", attached to `client`. */
export async function forkSession(services: AgentServices, request: StartRequest & { sessionId: string }, client: SessionClient): Promise<LiveSession> {
  const source = services.sessions.get(request.sessionId);
  if (source) await source.recorder.journal.sync();
  let loaded;
  try {
    loaded = await services.store.read(request.sessionId);
  } catch (error) {
    throw storeFailure(error, request.sessionId);
  }
  const directories = request.additionalDirectories ?? loaded.header.additionalDirectories;
  const restored = restoreState(loaded.entries);
  const live = await openSession(services, {
    cwd: request.cwd,
    additionalDirectories: directories,
    restored,
    journal: async (id) => {
      const journal = await services.store.create({ id, cwd: request.cwd, additionalDirectories: directories, forkedFrom: loaded.header.id });
      // Damaged entries stay behind: the fork starts from what was restored.
      for (const entry of undamagedEntries(loaded.entries)) {
        const { at: _at, ...rest } = entry;
        await journal.append(rest as typeof entry);
      }
      await journal.sync();
      return journal;
    },
  });
  for (const warning of [...loaded.warnings, ...restored.notices]) live.holdNotice(`Session file: ${warning}`);
  const title = `Fork of ${restored.title ?? loaded.header.id}`;
  live.setTitle(title);
  return await welcome(services, live, { type: "title", title }, request.mcpServers, client);
}
