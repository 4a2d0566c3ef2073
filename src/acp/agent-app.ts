/**
 * The ACP agent for one client connection: handlers for every method
 * acp-edge supports, sharing the process's services.
 * @module
 */
import { guardConnection, type MessageStreamPair } from "./connection-guard.ts";
import { redactOutbound } from "./outbound-redaction.ts";
import { newConnectionState, type ConnectionState, type SessionScope } from "./connection-state.ts";
import { detachAll } from "./session-attach.ts";
import { registerAuth } from "./handlers/auth.ts";
import { registerInitialize } from "./handlers/initialize.ts";
import { registerPrompt } from "./handlers/prompt.ts";
import { registerSessionConfig } from "./handlers/session-config.ts";
import { registerSessionLifecycle } from "./handlers/session-lifecycle.ts";
import { registerStoredSessions } from "./handlers/session-stored.ts";
import { acp, type AgentApp, type AgentConnection, type Stream } from "./sdk.ts";
import type { AgentServices } from "./services.ts";

export interface AgentAppHandle {
  app: AgentApp;
  state: ConnectionState;
}

export function createAgentApp(services: AgentServices, scope?: SessionScope): AgentAppHandle {
  const state = newConnectionState(scope);
  const app = acp.agent({ name: "acp-edge" });
  registerInitialize(app, services, state);
  registerAuth(app, services, state);
  registerSessionLifecycle(app, services, state);
  registerStoredSessions(app, services, state);
  registerPrompt(app, services, state);
  registerSessionConfig(app, services, state);
  return { app, state };
}

/**
 * Serves one client over a message stream until its input ends. Then the
 * turns of the sessions it opened are cancelled (answered `cancelled`), every
 * request already received is answered, and the connection closes.
 */
export async function serveConnection(services: AgentServices, stream: MessageStreamPair, scope?: SessionScope): Promise<void> {
  const { app, state } = createAgentApp(services, scope);
  const cancelOwnTurns = () => {
    for (const id of state.sessions) {
      const live = services.sessions.get(id);
      if (live?.turnOwner === state.id) live.agent.cancel("the client disconnected");
    }
  };
  const connection: AgentConnection = app.connect(guardConnection(redactOutbound(stream), { onInputEnd: cancelOwnTurns }) as unknown as Stream);
  await connection.closed;
  await detachAll(services, state);
}
