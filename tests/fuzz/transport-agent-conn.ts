/**
 * One fuzzed JSON-RPC connection as the client sees it: the ledger of owed
 * answers, the session ids the agent announced, responses to the fuzzer's
 * own requests, and a way to wait for any of it.
 */
import { Ledger } from "./transport-oracle.ts";
import type { Finding } from "./transport-target.ts";

/** Prefix of ids the fuzzer uses for its own requests; generated inputs never use it. */
export const OWN_ID = "fuzz-";

/** Client-side state of one connection. */
export class AgentConnection {
  readonly ledger = new Ledger();
  /** The latest session id seen in a result. */
  sessionId = "sess_none_yet";
  /** Responses to the fuzzer's own requests, by id. */
  readonly own = new Map<string, Record<string, unknown>>();
  /** Notifications received since `watchUpdates` was last reset. */
  updates: Record<string, unknown>[] = [];
  finding: Finding | undefined;
  #wakers: (() => void)[] = [];

  /** Handles one message from the agent. */
  receive(message: Record<string, unknown>): void {
    if ("method" in message) {
      if (message.method === "session/update") this.updates.push(message);
      if (this.updates.length > 1000) this.updates.splice(0, 500);
    } else {
      const problem = this.ledger.answer(message.id);
      if (problem) this.fail({ kind: "extra-answer", detail: problem });
      const result = message.result as Record<string, unknown> | undefined;
      if (result && typeof result === "object" && typeof result.sessionId === "string") this.sessionId = result.sessionId;
      if (typeof message.id === "string" && message.id.startsWith(OWN_ID)) this.own.set(message.id, message);
    }
    this.wake();
  }

  /** Records the first finding. */
  fail(finding: Finding): void {
    this.finding ??= finding;
    this.wake();
  }

  wake(): void {
    const wakers = this.#wakers;
    this.#wakers = [];
    for (const w of wakers) w();
  }

  /** Resolves true once `predicate` holds, false after `timeoutMs` or on a finding. */
  async until(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (predicate()) return true;
      if (this.finding) return false;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.#wakers.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** An own request as JSON text (its answer becomes required). */
  ownRequest(id: string, method: string, params: unknown): string {
    this.ledger.expect(JSON.stringify(id), true);
    return JSON.stringify({ jsonrpc: "2.0", id, method, params });
  }

  /** Waits for the answer to an own request. */
  async ownResponse(id: string, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
    await this.until(() => this.own.has(id), timeoutMs);
    return this.own.get(id);
  }
}

/** The requests of a normal turn, checked step by step; returns what went wrong. */
export async function normalTurn(
  send: (json: string) => Promise<void>,
  conn: AgentConnection,
  cwd: string,
  timeoutMs: number,
  label: string,
): Promise<Finding | undefined> {
  const step = async (name: string, method: string, params: unknown) => {
    const id = `${OWN_ID}${label}-${name}`;
    await send(conn.ownRequest(id, method, params));
    const response = await conn.ownResponse(id, timeoutMs);
    if (!response) return { failed: conn.finding ?? { kind: "final-turn" as const, detail: `no answer to ${method} within ${timeoutMs} ms` } };
    if (response.error) return { failed: { kind: "final-turn" as const, detail: `${method} failed: ${JSON.stringify(response.error).slice(0, 300)}` } };
    return { result: response.result as Record<string, unknown> };
  };
  const init = await step("initialize", "initialize", { protocolVersion: 1, clientCapabilities: {} });
  if (init.failed) return init.failed;
  const auth = await step("authenticate", "authenticate", { methodId: "acp-edge-credentials" });
  if (auth.failed) return auth.failed;
  const created = await step("new", "session/new", { cwd, mcpServers: [] });
  if (created.failed) return created.failed;
  const sessionId = created.result!.sessionId;
  conn.updates = [];
  const prompt = await step("prompt", "session/prompt", { sessionId, prompt: [{ type: "text", text: "fuzzing is over" }] });
  if (prompt.failed) return prompt.failed;
  if (prompt.result!.stopReason !== "end_turn") return { kind: "final-turn", detail: `the final prompt ended with ${JSON.stringify(prompt.result)}` };
  const answered = conn.updates.some((m) => {
    const params = m.params as { sessionId?: string; update?: { sessionUpdate?: string } };
    return params?.sessionId === sessionId && params.update?.sessionUpdate === "agent_message_chunk";
  });
  if (!answered) return { kind: "final-turn", detail: "the final prompt produced no agent_message_chunk" };
  return undefined;
}
