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

/** Characters of updates held for a client whose join is not answered yet; past this it is dropped like a client that does not read. */
const MAX_HELD_CHARS = 16 * 1024 * 1024;

/** A session client whose output waits until the response to the request that attached it is out. */
export interface JoiningClient extends SessionClient {
  /** Sends what was held, once the response now being written is out; call when the joining request ends, however it ends. */
  releaseAfterAnswer(): void;
}

/** This connection as a session client, with the capabilities it has now. */
export function sessionClient(services: AgentServices, state: ConnectionState, client: AgentContext): SessionClient {
  return createSessionClient(services, state, client, false);
}

/**
 * This connection as a client joining a session another client may be
 * using: updates of a turn already running are held until the join is
 * answered, so none reaches the client before the response (or, for
 * `session/load`, before the replayed history) — and none is lost.
 */
export function joiningSessionClient(services: AgentServices, state: ConnectionState, client: AgentContext): JoiningClient {
  return createSessionClient(services, state, client, true);
}

function createSessionClient(services: AgentServices, state: ConnectionState, client: AgentContext, hold: true): JoiningClient;
function createSessionClient(services: AgentServices, state: ConnectionState, client: AgentContext, hold: boolean): SessionClient;
function createSessionClient(services: AgentServices, state: ConnectionState, client: AgentContext, hold: boolean): JoiningClient {
  const capabilities = state.clientCapabilities;
  const prepare = (live: LiveSession, update: SessionUpdate) => new PreparedUpdate(live.agent.id, update);
  let held: PreparedUpdate[] | undefined = hold ? [] : undefined;
  let heldChars = 0;
  let notified: Promise<void> = Promise.resolve();
  const transmit = (items: readonly PreparedUpdate[]): Promise<void> | void => {
    // Straight to the socket, in order with everything sent before; otherwise through the connection.
    const direct = state.sendSerialised;
    if (direct) {
      // A backed-up output answers with a promise: the turn waits for it, as it would for a slow client.
      let backedUp: Promise<void> | undefined;
      for (const item of items) backedUp = direct(item.text) || backedUp;
      return backedUp;
    }
    // One after another, after those of earlier sends (held ones included).
    const sending = notified.then(async () => {
      for (const item of items) await client.notify(methods.client.session.update, item.params);
    });
    notified = sending.catch(() => undefined);
    return sending;
  };
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
      if (!held) return transmit(items);
      for (const item of items) {
        held.push(item);
        heldChars += item.text.length;
      }
      if (heldChars > MAX_HELD_CHARS) {
        held = [];
        throw new Error("too many updates while the client was joining; disconnected from the session");
      }
    },
    attached(sessionId) {
      state.sessions.add(sessionId);
    },
    releaseAfterAnswer() {
      // A timer, not a microtask: the SDK has written the response by the time it fires (as for announceSession).
      setTimeout(() => {
        const items = held ?? [];
        held = undefined;
        heldChars = 0;
        try {
          void Promise.resolve(transmit(items)).catch(() => undefined);
        } catch {
          // Gone meanwhile: its next update drops it from the session.
        }
      }, 0);
    },
  };
}
