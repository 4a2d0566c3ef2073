/**
 * A connection as a client of the sessions it attaches to: the sessions
 * layer's news and turn events become `session/update` notifications in the
 * form this client's capabilities call for.
 * @module
 */
import type { LiveSession, SessionClient, SessionNews } from "../sessions/live-session.ts";
import type { AgentServices } from "../sessions/services.ts";
import { configOptions } from "./config-options.ts";
import type { ConnectionState } from "./connection-state.ts";
import { PreparedUpdate } from "./prepared-update.ts";
import { TurnProjector } from "./projection.ts";
import { methods, type AgentContext, type ClientCapabilities, type SessionUpdate } from "./sdk.ts";

function projectorFor(capabilities: ClientCapabilities, cwd: string): TurnProjector {
  const meta = capabilities._meta as Record<string, unknown> | undefined;
  return new TurnProjector({
    terminalOutput: capabilities.terminal !== true && meta?.terminal_output === true,
    compaction: Boolean((capabilities as { session?: { compaction?: unknown } }).session?.compaction),
    cwd,
  });
}

/** The updates one piece of news becomes. */
function newsUpdates(live: LiveSession, services: AgentServices, news: SessionNews): SessionUpdate[] {
  switch (news.type) {
    case "message":
      return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: news.text } }];
    case "prompt": {
      const part = news.part;
      const content = part.type === "text" ? { type: "text" as const, text: part.text } : { type: "image" as const, data: part.data, mimeType: part.mimeType };
      return [{ sessionUpdate: "user_message_chunk", content }];
    }
    case "title":
      return [{ sessionUpdate: "session_info_update", title: news.title, updatedAt: news.updatedAt }];
    case "settings":
      return [
        ...(news.modeChanged ? [{ sessionUpdate: "current_mode_update" as const, currentModeId: live.mode }] : []),
        { sessionUpdate: "config_option_update", configOptions: configOptions(live, services) },
      ];
  }
}

/** Clients that project turns alike (same capabilities that change the projection) share one view. */
function viewKeyOf(capabilities: ClientCapabilities): string {
  const meta = capabilities._meta as Record<string, unknown> | undefined;
  const terminalOutput = capabilities.terminal !== true && meta?.terminal_output === true;
  const compaction = Boolean((capabilities as { session?: { compaction?: unknown } }).session?.compaction);
  return `terminal_output=${terminalOutput},compaction=${compaction}`;
}

/** This connection as a session client, with the capabilities it has now. */
export function sessionClient(services: AgentServices, state: ConnectionState, client: AgentContext): SessionClient {
  const capabilities = state.clientCapabilities;
  const prepare = (live: LiveSession, update: SessionUpdate) => new PreparedUpdate(live.agent.id, update);
  return {
    id: state.id,
    viewKey: viewKeyOf(capabilities),
    prepareNews(live, news) {
      return newsUpdates(live, services, news).map((update) => prepare(live, update));
    },
    watchTurn(live) {
      const projector = projectorFor(capabilities, live.cwd);
      return (event) => {
        const update = projector.project(event);
        return update ? [prepare(live, update)] : [];
      };
    },
    send(_live, output) {
      const items = output as readonly PreparedUpdate[];
      // Straight to the socket, in order with everything sent before; otherwise through the connection.
      const direct = state.sendSerialised;
      if (direct) {
        // A backed-up output answers with a promise: the turn waits for it, as it would for a slow client.
        let backedUp: Promise<void> | undefined;
        for (const item of items) backedUp = direct(item.text) || backedUp;
        return backedUp;
      }
      return (async () => {
        for (const item of items) await client.notify(methods.client.session.update, item.params);
      })();
    },
    attached(sessionId) {
      state.sessions.add(sessionId);
    },
  };
}
