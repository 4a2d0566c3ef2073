/**
 * Shared pieces of the queueing and steering suites: settings that point the
 * agent at the fake model server (OpenAI-compatible chat), the conversation a
 * model request carried, and the `_session/steering` request.
 */
import { acp, type TestClient } from "./acp-client.ts";
import type { Sandbox } from "./agent-process.ts";
import type { FakeModelServer, RecordedRequest } from "./fake-model-server.ts";
import { useFakeProvider } from "./fake-provider.ts";

/** The model the suites use: `local/fake` on the fake server. */
export const FAKE_MODEL = "local/fake";

/** Writes settings.json so `local/fake` is the fake server (no retries; `contextWindow` as given). */
export function useFakeModel(sandbox: Sandbox, server: FakeModelServer, options: { contextWindow?: number; extra?: Record<string, unknown> } = {}): void {
  useFakeProvider(sandbox.home, server, { models: [{ id: "fake", contextWindow: options.contextWindow ?? 200_000 }], ...(options.extra ? { extra: options.extra } : {}) });
}

/** Text of a chat message's content (a string or a list of parts). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? p.text : `[${p.type}]`)).join("");
  return "";
}

/**
 * The conversation a chat request carried, one line per message after the
 * system prompt: `user:<text>`, `assistant:<text>` or `assistant:call <tool>`,
 * `tool:<tool call id>`.
 */
export function conversation(request: RecordedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string } }>; tool_call_id?: string }>;
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "tool") lines.push(`tool:${m.tool_call_id}`);
    else if (m.role === "assistant" && m.tool_calls?.length) {
      const text = contentText(m.content);
      if (text) lines.push(`assistant:${text}`);
      for (const call of m.tool_calls) lines.push(`assistant:call ${call.function.name}`);
    } else lines.push(`${m.role}:${contentText(m.content)}`);
  }
  return lines;
}

/** Whether a request was the compaction's summary request. */
export function isSummaryRequest(request: RecordedRequest): boolean {
  return JSON.stringify(request.body?.messages?.[0] ?? "").includes("You summarise a coding session");
}

/** What `_session/steering` answers. */
export interface SteeringAnswer {
  outcome: string;
  reason?: string;
}

/** Sends `_session/steering` with one text block. */
export function steer(client: TestClient, sessionId: string, text: string, meta?: Record<string, unknown>): Promise<SteeringAnswer> {
  return client.agent.request<SteeringAnswer>("_session/steering", { sessionId, prompt: [{ type: "text", text }], ...(meta ? { _meta: meta } : {}) });
}

/** Sends `session/prompt` with one text block. */
export function prompt(client: TestClient, sessionId: string, text: string, options?: { cancellationSignal?: AbortSignal }): Promise<acp.PromptResponse> {
  return client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }, options);
}

/** The texts of `user_message_chunk` updates, in order. */
export function userChunks(updates: acp.SessionUpdate[]): string[] {
  return updates.flatMap((u) => (u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? [u.content.text] : []));
}

/** Index in `received` of the answer to the request whose result matched, for ordering checks. */
export function indexOf(client: TestClient, predicate: (message: Record<string, unknown>) => boolean): number {
  return client.received.findIndex(predicate);
}
