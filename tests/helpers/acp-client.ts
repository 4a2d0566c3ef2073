/**
 * The SDK's own `client()` connected to a spawned agent over NDJSON, with
 * every message the agent sent recorded in arrival order.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { AgentProcess } from "./agent-process.ts";
import { readTextFile, writeTextFile, type EditorFs, type EditorTerminals } from "./editor-capabilities.ts";

export type PermissionAnswer = (params: acp.RequestPermissionRequest) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;

export interface TestClient {
  agent: acp.ClientContext;
  /** Every message from the agent (responses, notifications, requests), in order. */
  received: Array<Record<string, unknown>>;
  /** `session/update` payloads for one session, in order. */
  updates(sessionId: string): acp.SessionUpdate[];
  /** Methods of agent→client requests seen so far. */
  clientRequests: string[];
  close(): void;
}

/** Answers `elicitation/create`; `signal` aborts when the agent cancels the request (`$/cancel_request`). */
export type ElicitationAnswer = (params: acp.CreateElicitationRequest, signal: AbortSignal) => unknown;

export interface ClientOptions {
  onPermission?: PermissionAnswer;
  /** Serve `elicitation/create` (the client must also advertise `elicitation` at initialize). */
  onElicitation?: ElicitationAnswer;
  /** Serve `fs/*` requests (the client must also advertise them at initialize). */
  fs?: EditorFs;
  /** Serve `terminal/*` requests. */
  terminals?: EditorTerminals;
}

export function connectClient(agentProcess: AgentProcess, options: ClientOptions = {}): TestClient {
  return connectStream(acp.ndJsonStream(agentProcess.stdin, agentProcess.stdout), options);
}

/** The SDK client over any stream of messages (stdio NDJSON, the SDK's WebSocket client stream, …). */
export function connectStream(byStream: acp.Stream, options: ClientOptions = {}): TestClient {
  const received: Array<Record<string, unknown>> = [];
  const clientRequests: string[] = [];
  const tap = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      received.push(message as Record<string, unknown>);
      if ("method" in message && "id" in message) clientRequests.push(String(message.method));
      controller.enqueue(message);
    },
  });
  const app = acp
    .client({ name: "acp-edge-tests" })
    .onNotification(acp.methods.client.session.update, () => undefined)
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) =>
      options.onPermission ? await options.onPermission(params) : { outcome: { outcome: "cancelled" } },
    );
  const { fs, terminals, onElicitation } = options;
  if (onElicitation) {
    app.onRequest(acp.methods.client.elicitation.create, async ({ params, signal }) => (await onElicitation(params, signal)) as acp.CreateElicitationResponse);
  }
  if (fs) {
    app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => readTextFile(fs, params));
    app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => writeTextFile(fs, params));
  }
  if (terminals) {
    app.onRequest(acp.methods.client.terminal.create, ({ params }) => terminals.create(params));
    app.onRequest(acp.methods.client.terminal.output, ({ params }) => terminals.output(params));
    app.onRequest(acp.methods.client.terminal.waitForExit, ({ params }) => terminals.waitForExit(params));
    app.onRequest(acp.methods.client.terminal.kill, ({ params }) => terminals.kill(params));
    app.onRequest(acp.methods.client.terminal.release, ({ params }) => terminals.release(params));
  }
  const connection = app.connect({ readable: byStream.readable.pipeThrough(tap), writable: byStream.writable });
  return {
    agent: connection.agent,
    received,
    clientRequests,
    updates(sessionId) {
      return received
        .filter((m) => m.method === "session/update" && (m.params as acp.SessionNotification).sessionId === sessionId)
        .map((m) => (m.params as acp.SessionNotification).update);
    },
    close: () => connection.close(),
  };
}

export async function initialize(client: TestClient, capabilities: acp.ClientCapabilities = {}): Promise<acp.InitializeResponse> {
  return await client.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: capabilities,
    clientInfo: { name: "acp-edge-tests", version: "1.0.0" },
  });
}

/** Concatenated agent message text of the updates. */
export function agentText(updates: acp.SessionUpdate[]): string {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");
}

export { acp };
