/**
 * The whole agent in this process (services, ACP handlers, NDJSON framing
 * over in-memory pipes, the SDK client), with a scripted faux model and a
 * real JSONL session directory: fast enough to load thousands of session
 * files, and the same code an editor meets over stdio.
 */
import type { FauxStep } from "../../src/models/faux-script.ts";
import { serveConnection } from "../../src/acp/agent-app.ts";
import { buildServices } from "../../src/cli/build-services.ts";
import { createMessageStream } from "../../src/transport/message-stream.ts";
import type { AgentServices } from "../../src/sessions/services.ts";
import { acp, connectStream, initialize, type ClientOptions, type TestClient } from "../helpers/acp-client.ts";

export interface InProcessAgent {
  services: AgentServices;
  client: TestClient;
  /** Ends the connection and waits for the agent to let go of its sessions. */
  close(): Promise<void>;
}

/** Starts the agent on `home` with its sessions in `sessionDir`, answering model calls from `steps`. */
export async function startInProcessAgent(
  options: { home: string; sessionDir: string; steps: FauxStep[]; approvalMode?: "read-only" | "ask" | "write" | "yolo" } & ClientOptions,
): Promise<InProcessAgent> {
  const services = await buildServices(
    {
      home: options.home,
      sessionDir: options.sessionDir,
      model: "faux/script",
      noSession: false,
      allowRemote: false,
      ...(options.approvalMode ? { approvalMode: options.approvalMode } : {}),
    },
    { fauxSteps: options.steps },
  );
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const served = serveConnection(services, createMessageStream(toAgent.readable, toClient.writable));
  const client = connectStream(acp.ndJsonStream(toAgent.writable, toClient.readable), options);
  await initialize(client);
  return {
    services,
    client,
    async close() {
      client.close();
      await toAgent.writable.close().catch(() => undefined);
      await served;
    },
  };
}
