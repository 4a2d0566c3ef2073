/**
 * Working with stored sessions: `session/list`, `session/load` (replays the
 * whole conversation first), `session/resume` (no replay) and the unstable
 * `session/fork` (a new session with a copy of the history).
 * @module
 */
import * as v from "valibot";
import type { ConnectionState } from "../connection-state.ts";
import { invalidParams } from "../errors.ts";
import { openSession } from "../open-session.ts";
import { methods, type AgentApp, type AgentContext } from "../sdk.ts";
import type { AgentServices } from "../services.ts";
import { announceSession } from "../session-announce.ts";
import { configOptions, modeState } from "../session-config.ts";
import { reviveSession, storeFailure } from "../session-lookup.ts";
import type { LiveSession } from "../session-registry.ts";
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

function refuseMcp(servers: readonly unknown[] | undefined): void {
  if (servers && servers.length > 0) throw invalidParams(`MCP servers are not supported by this version of acp-edge; send "mcpServers": []`);
}

/** A live session for this id: the one already open in this process, or the stored one brought back. */
async function attach(services: AgentServices, state: ConnectionState, request: { sessionId: string; cwd: string; additionalDirectories?: string[] }): Promise<LiveSession> {
  const existing = services.sessions.get(request.sessionId);
  if (existing) {
    state.sessions.add(existing.agent.id);
    return existing;
  }
  const { live } = await reviveSession(services, request);
  services.sessions.add(live);
  state.sessions.add(live.agent.id);
  return live;
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
    refuseMcp(params.mcpServers);
    const live = await attach(services, state, params);
    await replay(client, services, live);
    announceSession(client, live, services);
    return { modes: modeState(live), configOptions: configOptions(live, services) };
  });

  app.onRequest(methods.agent.session.resume, async ({ params, client }) => {
    refuseMcp(params.mcpServers);
    const live = await attach(services, state, params);
    announceSession(client, live, services);
    return { modes: modeState(live), configOptions: configOptions(live, services) };
  });

  app.onRequest("session/fork", parseForkParams, async ({ params, client }) => {
    refuseMcp(params.mcpServers);
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
        for (const entry of loaded.entries) {
          const { at: _at, ...rest } = entry;
          await journal.append(rest as typeof entry);
        }
        await journal.sync();
        return journal;
      },
    });
    const title = `Fork of ${restored.title ?? loaded.header.id}`;
    live.title = title;
    await live.recorder.write({ type: "title", title }, true);
    services.sessions.add(live);
    state.sessions.add(live.agent.id);
    announceSession(client, live, services);
    return { sessionId: live.agent.id, modes: modeState(live), configOptions: configOptions(live, services) };
  });
}
