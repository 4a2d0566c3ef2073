/**
 * The ACP agent for one client connection: handlers for every method
 * acp-edge supports, sharing the process's services.
 * @module
 */
import { guardConnection, type GuardedConnection, type GuardOptions, type MessageStreamPair } from "./connection/connection-guard.ts";
import { redactOutbound } from "./connection/outbound-redaction.ts";
import { cancelInOrder } from "./connection/cancel-in-order.ts";
import { newConnectionState, type ConnectionState, type SessionScope } from "./connection/connection-state.ts";
import { cancelTurnsOf, detachClient } from "../sessions/session-attach.ts";
import { deferHandlers } from "./connection/deferred-handlers.ts";
import { registerInitialize } from "./handlers/initialize.ts";
import { warmUpAfterInitialize } from "./connection/idle-warm-up.ts";
import { protocolHandlers } from "./connection/protocol-handlers.ts";
import { acp, type AgentApp, type AgentConnection, type Stream } from "./sdk.ts";
import type { AgentServices } from "../sessions/services.ts";

export interface AgentAppHandle {
  app: AgentApp;
  state: ConnectionState;
}

/** Detaches a connection from every session it was attached to (it closed or went away). */
async function detachAll(services: AgentServices, state: ConnectionState): Promise<void> {
  state.gone = true;
  const ids = [...state.sessions];
  state.sessions.clear();
  await Promise.all(ids.map((id) => detachClient(services, state.id, id)));
}

/**
 * A new agent app for one connection behind `guard`, with every handler
 * registered. `sendSerialised`, when the transport has it, takes session
 * updates shared by several clients straight to it, serialised once.
 */
export function createAgentApp(
  services: AgentServices,
  guard: GuardedConnection,
  scope?: SessionScope,
  sendSerialised?: (text: string) => Promise<void> | void,
): AgentAppHandle {
  const state = newConnectionState(scope, guard.afterAnswer, guard.arrivalOf);
  if (sendSerialised) state.sendSerialised = sendSerialised;
  const app = acp.agent({ name: "acp-edge" });
  // Only `initialize` is compiled before the first answer; the rest loads once it is written (or on first use).
  const handlers = protocolHandlers(app, {
    // A request under way when the connection closed may still attach it to a session (a join finishing late):
    // nobody would detach it after that, so it is detached once that request is done.
    afterEach: () => {
      if (state.gone && state.sessions.size > 0) void detachAll(services, state).catch(() => undefined);
    },
    initialized: (requestId) => guard.afterAnswer(requestId, () => warmUpAfterInitialize(deferred.prepare)),
  });
  const deferred = deferHandlers(handlers, async () => {
    const { registerSessionHandlers } = await import("./handlers/session-handlers.ts");
    return (recorder) => registerSessionHandlers(recorder, services, state);
  });
  registerInitialize(handlers, services, state);
  return { app, state };
}

/** A connection being served: settles once it is over; `answered` once what it received so far is answered. */
export interface ServedConnection {
  closed: Promise<void>;
  /** Settles once every request received so far is answered (bounded), e.g. before a shutdown closes the transport. */
  answered(): Promise<void>;
}

/**
 * Connects one client over a message stream; `closed` settles once its input
 * has ended, the turns of the sessions it opened are cancelled (answered
 * `cancelled`), every request already received is answered, and its sessions
 * are released. Every transport (stdio, WebSocket, Streamable HTTP) goes
 * through here, so all get the same guard and outbound redaction. `watch`
 * hears when the connection starts and stops owing its client an answer.
 */
export function connectAgent(services: AgentServices, stream: MessageStreamPair, scope?: SessionScope, watch?: Pick<GuardOptions, "onBusyChange">): ServedConnection {
  let state: ConnectionState | undefined;
  const cancelOwnTurns = () => {
    if (!state) return;
    // A prompt of this client still getting ready (tools, context files, the prompt's files) sees this before its turn starts.
    state.inputEnded.end(new Error("the client disconnected"));
    cancelTurnsOf(services, state.id, state.sessions, "the client disconnected");
  };
  // A cancel is applied as it arrives, in order with the messages around it (see cancel-in-order.ts).
  const onSessionCancel = (sessionId: string, arrival: number) => {
    if (state) cancelInOrder(services, state, sessionId, arrival);
  };
  const guard = guardConnection(redactOutbound(stream), { onInputEnd: cancelOwnTurns, onSessionCancel, ...watch });
  const handle = createAgentApp(services, guard, scope, stream.sendSerialised);
  state = handle.state;
  const connection: AgentConnection = handle.app.connect(guard as unknown as Stream);
  const closed = (async () => {
    await connection.closed;
    await detachAll(services, handle.state);
  })();
  return { closed, answered: () => guard.answered() };
}

/** Serves one client over a message stream until its input ends (see `connectAgent`). */
export async function serveConnection(services: AgentServices, stream: MessageStreamPair, scope?: SessionScope): Promise<void> {
  await connectAgent(services, stream, scope).closed;
}
