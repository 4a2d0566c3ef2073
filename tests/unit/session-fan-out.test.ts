/**
 * Many clients on one session: each update is projected, redacted and
 * serialised once per view and the same text goes to every client of that
 * view; a client that fails is dropped while the others carry on.
 */
import { describe, expect, test } from "bun:test";
import { newConnectionState } from "../../src/acp/connection/connection-state.ts";
import { sessionClient } from "../../src/acp/updates/session-client.ts";
import type { AgentContext, ClientCapabilities } from "../../src/acp/sdk.ts";
import { registerSecret } from "../../src/runtime/secrets.ts";
import type { AgentSession } from "../../src/engine/session.ts";
import { LiveSession } from "../../src/sessions/live-session.ts";
import type { SessionRecorder } from "../../src/sessions/journal/session-recorder.ts";
import type { AgentServices } from "../../src/sessions/services.ts";
import { broadcast } from "../../src/sessions/session-broadcast.ts";
import { sessionEmitter } from "../../src/sessions/session-emitter.ts";

const KEY = "sk-fan-out-0123456789abcdef";
registerSecret(KEY);

/** A connection whose transport takes serialised messages, recording what it is sent. */
function connection(live: LiveSession, capabilities: ClientCapabilities = {}, fail = false) {
  const state = newConnectionState();
  state.clientCapabilities = capabilities;
  const sent: string[] = [];
  state.sendSerialised = (text) => {
    if (fail) throw new Error("the WebSocket is closed");
    sent.push(text);
  };
  const notified: unknown[] = [];
  const context = { notify: async (_method: string, params: unknown) => void notified.push(params) } as unknown as AgentContext;
  live.attach(sessionClient({} as AgentServices, state, context));
  return { state, sent, notified };
}

/** A real live session around stand-ins for the engine session and the journal (neither is reached here). */
function liveSession(): LiveSession {
  return new LiveSession({
    agent: { id: "ses_fanout" } as AgentSession,
    cwd: "/project",
    additionalDirectories: [],
    settings: {},
    mode: "ask",
    grants: [],
    recorder: { record: async () => undefined } as unknown as SessionRecorder,
    templates: [],
    skills: [],
    notices: [],
    emitterFor: sessionEmitter,
  });
}

describe("fan-out to the clients of one session", () => {
  test("16 clients of one view get the very same redacted text for every update, serialised once", async () => {
    const live = liveSession();
    const clients = Array.from({ length: 16 }, () => connection(live));
    const emit = sessionEmitter(live);
    await emit({ type: "text_delta", messageId: "m1", text: `the key is ${KEY}` });
    await emit({ type: "text_delta", messageId: "m1", text: " and more" });
    for (const client of clients) {
      expect(client.sent.length).toBe(2);
      expect(client.notified).toEqual([]);
      // The same string object: made once for all of them, not once per client.
      expect(Object.is(client.sent[0], clients[0]!.sent[0])).toBe(true);
      expect(Object.is(client.sent[1], clients[0]!.sent[1])).toBe(true);
    }
    const first = JSON.parse(clients[0]!.sent[0]!);
    expect(first).toEqual({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "ses_fanout", update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "the key is [redacted]" } } },
    });
  });

  test("clients whose capabilities change the projection get their own view; news is prepared once per view", async () => {
    const live = liveSession();
    const plain = [connection(live), connection(live)];
    const terminals = [connection(live, { _meta: { terminal_output: true } }), connection(live, { _meta: { terminal_output: true } })];
    const emit = sessionEmitter(live);
    await emit({ type: "tool_call", toolCallId: "t1", toolName: "bash", title: "ls", kind: "execute", locations: [], input: { command: "ls" } });
    expect(Object.is(plain[0]!.sent[0], plain[1]!.sent[0])).toBe(true);
    expect(Object.is(terminals[0]!.sent[0], terminals[1]!.sent[0])).toBe(true);
    expect(JSON.parse(plain[0]!.sent[0]!).params.update._meta).toBeUndefined();
    expect(JSON.parse(terminals[0]!.sent[0]!).params.update._meta.terminal_info.terminal_id).toBe("t1");

    await broadcast(live, { type: "message", text: "hello" }, plain[0]!.state.id);
    expect(plain[0]!.sent.length).toBe(1);
    expect(plain[1]!.sent.length).toBe(2);
    expect(Object.is(terminals[0]!.sent[1], terminals[1]!.sent[1])).toBe(true);
    expect(terminals[0]!.sent[1]).toBe(plain[1]!.sent[1]!);
  });

  test("a client whose send fails is dropped; the others get every update", async () => {
    const live = liveSession();
    const good = connection(live);
    const gone = connection(live, {}, true);
    const emit = sessionEmitter(live);
    await emit({ type: "text_delta", messageId: "m1", text: "one" });
    expect(live.hasClient(gone.state.id)).toBe(false);
    await emit({ type: "text_delta", messageId: "m1", text: "two" });
    expect(good.sent.map((t) => JSON.parse(t).params.update.content.text)).toEqual(["one", "two"]);
  });

  test("a connection without a serialised path is sent the update through its ACP connection", async () => {
    const live = liveSession();
    const state = newConnectionState();
    const notified: unknown[] = [];
    const context = { notify: async (_method: string, params: unknown) => void notified.push(params) } as unknown as AgentContext;
    live.attach(sessionClient({} as AgentServices, state, context));
    await sessionEmitter(live)({ type: "text_delta", messageId: "m1", text: "hi" });
    expect(notified).toEqual([{ sessionId: "ses_fanout", update: { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } } }]);
  });
});
