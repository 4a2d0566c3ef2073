/**
 * An ACP client talking NDJSON over in-memory byte pipes to an agent served
 * by the caller (who frames the agent's side with the real transport). The
 * same framing, SDK and handlers an editor would meet, without a
 * subprocess. Used by `acp-edge demo`.
 * @module
 */
import { acp, methods, type SessionUpdate, type StopReason } from "../sdk.ts";

/** Serves the agent on the given byte streams until the client closes them. */
export type AgentServer = (fromClient: ReadableStream<Uint8Array>, toClient: WritableStream<Uint8Array>) => Promise<void>;

export interface ConversationScript {
  cwd: string;
  prompts: string[];
  onUpdate(update: SessionUpdate): void;
  onPrompt(text: string): void;
  onStop(reason: StopReason): void;
}

function bytePipe() {
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  return { readable: pipe.readable, writable: pipe.writable };
}

export async function runInProcessConversation(serve: AgentServer, script: ConversationScript): Promise<void> {
  const toAgent = bytePipe();
  const toClient = bytePipe();
  const served = serve(toAgent.readable, toClient.writable);

  const client = acp
    .client({ name: "acp-edge-demo" })
    .onNotification(methods.client.session.update, ({ params }) => script.onUpdate(params.update))
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
      return allow ? { outcome: { outcome: "selected", optionId: allow.optionId } } : { outcome: { outcome: "cancelled" } };
    });

  await client.connectWith(acp.ndJsonStream(toAgent.writable, toClient.readable), async (agent) => {
    await agent.request(methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
      clientInfo: { name: "acp-edge-demo", version: "1" },
    });
    const { sessionId } = await agent.request(methods.agent.session.new, { cwd: script.cwd, mcpServers: [] });
    for (const text of script.prompts) {
      script.onPrompt(text);
      const { stopReason } = await agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      script.onStop(stopReason);
    }
  });
  // Closing the client does not end the byte pipe; end it so the agent sees end of input.
  await toAgent.writable.close().catch(() => undefined);
  await served;
}
