/**
 * The ACP agent for one client connection: handlers for every method
 * acp-edge supports, sharing the process's services.
 * @module
 */
import { guardConnection, type GuardOptions, type MessageStreamPair } from "./connection-guard.ts";
import { redactOutbound } from "./outbound-redaction.ts";
import { newConnectionState, type ConnectionState, type SessionScope } from "./connection-state.ts";
import { detachClient } from "../sessions/session-attach.ts";
import { protocolError } from "./errors.ts";
import { deferHandlers } from "./deferred-handlers.ts";
import { registerInitialize } from "./handlers/initialize.ts";
import { acp, type AgentApp, type AgentConnection, type Stream } from "./sdk.ts";
import type { AgentServices } from "../sessions/services.ts";

export interface AgentAppHandle {
  app: AgentApp;
  state: ConnectionState;
}

/**
 * Makes every request handler's failure a protocol error: the sessions layer
 * refuses in its own terms, and this is the one place they are translated.
 */
function answerInProtocolTerms(app: AgentApp, afterEach: () => void): void {
  const register = app.onRequest.bind(app) as (...args: unknown[]) => AgentApp;
  app.onRequest = ((...args: unknown[]) => {
    const handler = args.at(-1) as (context: unknown) => unknown;
    const translated = async (context: unknown) => {
      try {
        return await handler(context);
      } catch (error) {
        throw protocolError(error);
      } finally {
        afterEach();
      }
    };
    return register(...args.slice(0, -1), translated);
  }) as AgentApp["onRequest"];
}

/** Detaches a connection from every session it was attached to (it closed or went away). */
async function detachAll(services: AgentServices, state: ConnectionState): Promise<void> {
  state.gone = true;
  const ids = [...state.sessions];
  state.sessions.clear();
  await Promise.all(ids.map((id) => detachClient(services, state.id, id)));
}

/** A new agent app for one connection, with every handler registered. */
export function createAgentApp(services: AgentServices, scope?: SessionScope, sendSerialised?: (text: string) => Promise<void> | void): AgentAppHandle {
  const state = newConnectionState(scope);
  if (sendSerialised) state.sendSerialised = sendSerialised;
  const app = acp.agent({ name: "acp-edge" });
  // A request under way when the connection closed may still attach it to a session (a join finishing late):
  // nobody would detach it after that, so it is detached once that request is done.
  answerInProtocolTerms(app, () => {
    if (state.gone && state.sessions.size > 0) void detachAll(services, state).catch(() => undefined);
  });
  // Only `initialize` is compiled before the first answer; the rest loads right after it (or on first use).
  const deferred = deferHandlers(app, async () => {
    const { registerSessionHandlers } = await import("./session-handlers.ts");
    return (recorder) => registerSessionHandlers(recorder, services, state);
  });
  registerInitialize(app, services, state, { onAnswered: () => deferred.prepareSoon() });
  return { app, state };
}

/**
 * Connects one client over a message stream; `closed` settles once its input
 * has ended, the turns of the sessions it opened are cancelled (answered
 * `cancelled`), every request already received is answered, and its sessions
 * are released. Every transport (stdio, WebSocket, Streamable HTTP) goes
 * through here, so all get the same guard and outbound redaction. `watch`
 * hears when the connection starts and stops owing its client an answer.
 */
export function connectAgent(services: AgentServices, stream: MessageStreamPair, scope?: SessionScope, watch?: Pick<GuardOptions, "onBusyChange">): { closed: Promise<void> } {
  const { app, state } = createAgentApp(services, scope, stream.sendSerialised);
  const cancelOwnTurns = () => {
    // A prompt of this client still getting ready (tools, context files, the prompt's files) sees this before its turn starts.
    state.inputEnded.abort(new Error("the client disconnected"));
    for (const id of state.sessions) {
      const live = services.sessions.get(id);
      if (live?.turnOwner === state.id) live.agent.cancel("the client disconnected");
    }
  };
  const connection: AgentConnection = app.connect(guardConnection(redactOutbound(stream), { onInputEnd: cancelOwnTurns, ...watch }) as unknown as Stream);
  const closed = (async () => {
    await connection.closed;
    await detachAll(services, state);
  })();
  return { closed };
}

/** Serves one client over a message stream until its input ends (see `connectAgent`). */
export async function serveConnection(services: AgentServices, stream: MessageStreamPair, scope?: SessionScope): Promise<void> {
  await connectAgent(services, stream, scope).closed;
}
