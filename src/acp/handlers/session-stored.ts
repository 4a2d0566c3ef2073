/**
 * Working with stored sessions: `session/list`, `session/load` (replays the
 * whole conversation first), `session/resume` (no replay) and the unstable
 * `session/fork` (a new session with a copy of the history).
 * @module
 */
import * as v from "valibot";
import type { ConnectionState } from "../connection-state.ts";
import { invalidParams } from "../errors.ts";
import { checkDirectory, openSession } from "../open-session.ts";
import { realPath } from "../../runtime/fs.ts";
import { attachConnection } from "../session-attach.ts";
import { connectMcpServers } from "../session-mcp.ts";
import { methods, type AgentApp, type AgentContext } from "../sdk.ts";
import type { AgentServices } from "../services.ts";
import { announceSession } from "../session-announce.ts";
import { configOptions, modeState } from "../session-config.ts";
import { reviveSession, storeFailure } from "../session-lookup.ts";
import type { LiveSession } from "../session-registry.ts";
import { undamagedEntries } from "../session-entry-check.ts";
import { replayUpdates, restoreState } from "../session-restore.ts";

const ForkParams = v.object({
  sessionId: v.string(),
  cwd: v.string(),
  additionalDirectories: v.optional(v.array(v.string())),
  mcpServers: v.optional(v.array(v.unknown())),
});

function parseForkParams(raw: unknown): v.InferOutput<typeof ForkParams> {
  const result = v.safeParse(ForkParams, raw);
  if (!result.success) throw invalidParams(result.issues.map((i) => `${v.getDotPath(i) ?? "params"}: ${i.message}`).join("; "));
  return result.output;
}

/** The client's MCP servers for a session it attaches to; an empty list keeps what the session has. */
async function useMcpServers(live: LiveSession, servers: readonly unknown[] | undefined): Promise<void> {
  if (servers && servers.length > 0) await connectMcpServers(live, servers);
}

/** Attaches this connection to the session: the one already live in this process, or the stored one brought back. */
async function attach(
  services: AgentServices,
  state: ConnectionState,
  client: AgentContext,
  request: { sessionId: string; cwd: string; additionalDirectories?: string[] },
): Promise<LiveSession> {
  let live = services.sessions.get(request.sessionId);
  if (live) {
    await checkSameCwd(live, request.cwd);
  } else {
    live = (await reviveSession(services, request)).live;
    services.sessions.add(live);
  }
  attachConnection(live, state, client);
  return live;
}

async function checkSameCwd(live: LiveSession, cwd: string): Promise<void> {
  await checkDirectory(cwd, "cwd");
  const [a, b] = await Promise.all([realPath(live.cwd).catch(() => live.cwd), realPath(cwd).catch(() => cwd)]);
  if (a !== b) throw invalidParams(`session ${live.agent.id} belongs to ${live.cwd}, not ${cwd}`, { cwd, sessionCwd: live.cwd });
}

/**
 * `session/new`, `load` or `resume` on a connection scoped to one session:
 * binds that session (when the cwd matches) instead of creating one.
 */
export async function bindScopedSession(
  services: AgentServices,
  state: ConnectionState,
  client: AgentContext,
  params: { sessionId?: string; cwd: string; additionalDirectories?: string[]; mcpServers?: readonly unknown[] },
  options: { replay: boolean },
) {
  const scope = state.scope!;
  if (params.sessionId !== undefined && params.sessionId !== scope.sessionId) {
    throw invalidParams(`this connection is scoped to session ${scope.sessionId}`, { sessionId: params.sessionId, scopedTo: scope.sessionId });
  }
  const live = await attach(services, state, client, { ...params, sessionId: scope.sessionId });
  await useMcpServers(live, params.mcpServers);
  state.bound = true;
  if (options.replay) await replay(client, services, live);
  announceSession(client, live, services);
  return { sessionId: live.agent.id, modes: modeState(live), configOptions: configOptions(live, services) };
}

async function replay(client: AgentContext, services: AgentServices, live: LiveSession): Promise<void> {
  await live.recorder.journal.sync();
  let loaded;
  try {
    loaded = await services.store.read(live.agent.id);
  } catch (error) {
    throw storeFailure(error, live.agent.id);
  }
  for (const update of replayUpdates(loaded.entries)) {
    await client.notify(methods.client.session.update, { sessionId: live.agent.id, update });
  }
}

export function registerStoredSessions(app: AgentApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.session.list, async ({ params }) => {
    try {
      const page = await services.store.list({
        ...(params.cwd ? { cwd: params.cwd } : {}),
        ...(params.cursor ? { cursor: params.cursor } : {}),
      });
      return {
        sessions: page.sessions.map((s) => ({
          sessionId: s.id,
          cwd: s.cwd,
          ...(s.additionalDirectories.length > 0 ? { additionalDirectories: s.additionalDirectories } : {}),
          title: s.title ?? null,
          updatedAt: s.updatedAt,
        })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    } catch (error) {
      throw storeFailure(error, "");
    }
  });

  app.onRequest(methods.agent.session.load, async ({ params, client }) => {
    if (state.scope) {
      const { sessionId: _id, ...response } = await bindScopedSession(services, state, client, params, { replay: true });
      return response;
    }
    const live = await attach(services, state, client, params);
    await useMcpServers(live, params.mcpServers);
    await replay(client, services, live);
    announceSession(client, live, services);
    return { modes: modeState(live), configOptions: configOptions(live, services) };
  });

  app.onRequest(methods.agent.session.resume, async ({ params, client }) => {
    if (state.scope) {
      const { sessionId: _id, ...response } = await bindScopedSession(services, state, client, params, { replay: false });
      return response;
    }
    const live = await attach(services, state, client, params);
    await useMcpServers(live, params.mcpServers);
    announceSession(client, live, services);
    return { modes: modeState(live), configOptions: configOptions(live, services) };
  });

  app.onRequest("session/fork", parseForkParams, async ({ params, client }) => {
    if (state.scope) throw invalidParams(`this connection is scoped to session ${state.scope.sessionId}; fork it from /acp`);
    const source = services.sessions.get(params.sessionId);
    if (source) await source.recorder.journal.sync();
    let loaded;
    try {
      loaded = await services.store.read(params.sessionId);
    } catch (error) {
      throw storeFailure(error, params.sessionId);
    }
    const directories = params.additionalDirectories ?? loaded.header.additionalDirectories;
    const restored = restoreState(loaded.entries);
    const live = await openSession(services, {
      cwd: params.cwd,
      additionalDirectories: directories,
      restored,
      journal: async (id) => {
        const journal = await services.store.create({ id, cwd: params.cwd, additionalDirectories: directories, forkedFrom: loaded.header.id });
        // Damaged entries stay behind: the fork starts from what was restored.
        for (const entry of undamagedEntries(loaded.entries)) {
          const { at: _at, ...rest } = entry;
          await journal.append(rest as typeof entry);
        }
        await journal.sync();
        return journal;
      },
    });
    live.notices.push(...[...loaded.warnings, ...restored.notices].map((w) => `Session file: ${w}`));
    const title = `Fork of ${restored.title ?? loaded.header.id}`;
    live.title = title;
    await live.recorder.write({ type: "title", title }, true);
    services.sessions.add(live);
    await useMcpServers(live, params.mcpServers);
    attachConnection(live, state, client);
    announceSession(client, live, services);
    return { sessionId: live.agent.id, modes: modeState(live), configOptions: configOptions(live, services) };
  });
}
