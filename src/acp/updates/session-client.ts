/**
 * A connection as a client of the sessions it attaches to: the sessions
 * layer's news and turn events become `session/update` notifications in the
 * form this client's capabilities call for.
 * @module
 */
import type { LiveSession, SessionClient, SessionNews } from "../../sessions/live-session.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { availableCommands } from "../../sessions/commands/slash-commands.ts";
import { configOptions } from "../handlers/config-options.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import type { JsonRpcId } from "../connection/jsonrpc-envelope.ts";
import { PreparedUpdate } from "./prepared-update.ts";
import { TurnProjector, userMessageChunks } from "./projection.ts";
import { methods, type AgentContext, type ClientCapabilities, type SessionUpdate } from "../sdk.ts";

/** What in a client's capabilities changes how turns are shown to it; clients alike here share one view. */
interface TurnView {
  terminalOutput: boolean;
  compaction: boolean;
  /** Equal for clients with the same view (see `SessionClient.viewKey`). */
  key: string;
}

/** The one place a client's capabilities are read for the projection. */
function turnView(capabilities: ClientCapabilities): TurnView {
  const meta = capabilities._meta as Record<string, unknown> | undefined;
  const terminalOutput = capabilities.terminal !== true && meta?.terminal_output === true;
  const compaction = Boolean((capabilities as { session?: { compaction?: unknown } }).session?.compaction);
  return { terminalOutput, compaction, key: `terminal_output=${terminalOutput},compaction=${compaction}` };
}

/** The updates one piece of news becomes. */
function newsUpdates(live: LiveSession, services: AgentServices, news: SessionNews): SessionUpdate[] {
  switch (news.type) {
    case "message":
      return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: news.text } }];
    case "prompt":
      return userMessageChunks([news.part]);
    case "title":
      return [{ sessionUpdate: "session_info_update", title: news.title, updatedAt: news.updatedAt }];
    case "settings":
      return [
        ...(news.modeChanged ? [{ sessionUpdate: "current_mode_update" as const, currentModeId: live.mode }] : []),
        { sessionUpdate: "config_option_update", configOptions: configOptions(live, services) },
      ];
    case "commands":
      return [{ sessionUpdate: "available_commands_update", availableCommands: availableCommands(live) }];
  }
}

/** Characters of updates held for a client whose join is not answered yet; past this it is dropped like a client that does not read. */
const MAX_HELD_CHARS = 16 * 1024 * 1024;

/** This connection as a session client, with the capabilities it has now. */
export function sessionClient(services: AgentServices, state: ConnectionState, client: AgentContext): SessionClient {
  return createSessionClient(services, state, client, undefined);
}

/**
 * This connection as a client joining, with request `requestId`, a session
 * another client may be using: updates of a turn already running are held
 * until the answer to that request is written (result or error), so none
 * reaches the client before the response (or, for `session/load`, before
 * the replayed history) — and none is lost.
 */
export function joiningSessionClient(services: AgentServices, state: ConnectionState, client: AgentContext, requestId: JsonRpcId): SessionClient {
  return createSessionClient(services, state, client, requestId);
}

function createSessionClient(services: AgentServices, state: ConnectionState, client: AgentContext, joiningWith: JsonRpcId | undefined): SessionClient {
  const view = turnView(state.clientCapabilities);
  const prepare = (live: LiveSession, update: SessionUpdate) => new PreparedUpdate(live.id, update);
  let held: PreparedUpdate[] | undefined = joiningWith === undefined ? undefined : [];
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
  if (joiningWith !== undefined) {
    state.afterAnswer(joiningWith, () => {
      const items = held ?? [];
      held = undefined;
      heldChars = 0;
      try {
        void Promise.resolve(transmit(items)).catch(() => undefined);
      } catch {
        // Gone meanwhile: its next update drops it from the session.
      }
    });
  }
  return {
    id: state.id,
    viewKey: view.key,
    prepareNews(live, news) {
      return newsUpdates(live, services, news).map((update) => prepare(live, update));
    },
    watchTurn(live) {
      const projector = new TurnProjector({ terminalOutput: view.terminalOutput, compaction: view.compaction, cwd: live.cwd });
      return (event) => projector.updates(event).map((update) => prepare(live, update));
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
  };
}
