/**
 * Shared pieces of the rewind suites: the extension's fingerprint, a prompt
 * carrying the client's own message id (answered raw, with the id the agent
 * kept), `_session/rewind` and `_session/rewind_files`, and the fake model
 * server with its sandbox for a suite.
 */
import { afterAll, beforeAll } from "bun:test";
import { createHash } from "node:crypto";
import { makeSandbox, type Sandbox } from "./agent-process.ts";
import { startFakeModelServer, type FakeModelServer } from "./fake-model-server.ts";
import { useFakeModel } from "./queue-steer.ts";
import { acp } from "./acp-client.ts";
import type { RunningAgent } from "./session-agent.ts";

/** `sha256:<hex>` of `text`, as the extension spells a message fingerprint. */
export const fingerprint = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

/** Sends `session/prompt` with one text block and, when given, the client's own message id; answers the raw result. */
export async function promptWithId(agent: RunningAgent, sessionId: string, text: string, messageId?: string): Promise<{ stopReason: string; userMessageId?: string }> {
  const before = agent.client.received.length;
  const answer = await agent.client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }], ...(messageId ? { messageId } : {}) } as acp.PromptRequest);
  // The SDK's client drops fields its schema does not know: read the raw answer.
  const raw = agent.client.received.slice(before).find((m) => (m.result as { stopReason?: string })?.stopReason === answer.stopReason && "id" in m);
  return raw!.result as { stopReason: string; userMessageId?: string };
}

/** `_session/rewind` with the given params. */
export function rewind(agent: RunningAgent, params: unknown): Promise<{ rewound: boolean }> {
  return agent.client.agent.request<{ rewound: boolean }>("_session/rewind", params);
}

/** One file of a `_session/rewind_files` answer. */
export interface RewoundFile {
  path: string;
  action: string;
  applied: boolean;
  reason?: string;
}

/** `_session/rewind_files` with the given params. */
export function rewindFiles(agent: RunningAgent, params: unknown): Promise<{ files: RewoundFile[] }> {
  return agent.client.agent.request<{ files: RewoundFile[] }>("_session/rewind_files", params);
}

/** A `_session/rewind_files` answer as `{base name: "action" or "action (not applied)"}`. */
export function fileActions(answer: { files: RewoundFile[] }): Record<string, string> {
  return Object.fromEntries(answer.files.map((f) => [f.path.split("/").pop(), `${f.action}${f.applied ? "" : " (not applied)"}`]));
}

/** The fake model server and a sandbox that uses it, made before a suite's tests and removed after them. */
export function fakeModelSuite(): { readonly server: FakeModelServer; readonly sandbox: Sandbox } {
  const suite = {} as { server: FakeModelServer; sandbox: Sandbox };
  beforeAll(async () => {
    suite.server = await startFakeModelServer();
    suite.sandbox = makeSandbox();
    useFakeModel(suite.sandbox, suite.server);
  });
  afterAll(async () => {
    await suite.server.close();
    suite.sandbox.cleanup();
  });
  return suite;
}
