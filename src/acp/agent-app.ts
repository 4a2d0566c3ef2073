/**
 * The ACP agent for one client connection: handlers for every method
 * acp-edge supports, sharing the process's services.
 * @module
 */
import { newConnectionState, type ConnectionState } from "./connection-state.ts";
import { registerAuth } from "./handlers/auth.ts";
import { registerInitialize } from "./handlers/initialize.ts";
import { registerPrompt } from "./handlers/prompt.ts";
import { registerSessionLifecycle } from "./handlers/session-lifecycle.ts";
import { acp, type AgentApp, type AgentConnection, type Stream } from "./sdk.ts";
import type { AgentServices } from "./services.ts";

export interface AgentAppHandle {
  app: AgentApp;
  state: ConnectionState;
}

export function createAgentApp(services: AgentServices): AgentAppHandle {
  const state = newConnectionState();
  const app = acp.agent({ name: "acp-edge" });
  registerInitialize(app, services, state);
  registerAuth(app, services, state);
  registerSessionLifecycle(app, services, state);
  registerPrompt(app, services);
  return { app, state };
}

/**
 * Serves one client over a message stream until it closes, then cancels the
 * turns of the sessions it opened and waits (bounded) for them to settle.
 */
export async function serveConnection(services: AgentServices, stream: { readable: ReadableStream<Record<string, unknown>>; writable: WritableStream<Record<string, unknown>> }): Promise<void> {
  const { app, state } = createAgentApp(services);
  const connection: AgentConnection = app.connect(stream as unknown as Stream);
  await connection.closed;
  for (const id of state.sessions) services.sessions.get(id)?.agent.cancel("the client disconnected");
  await services.sessions.cancelAll();
}
