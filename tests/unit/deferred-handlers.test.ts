/**
 * Handlers that load on first use, behind the real SDK: a client connected in
 * memory must see the same answers whether or not they have loaded yet.
 */
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { newConnectionState } from "../../src/acp/connection/connection-state.ts";
import { DEFERRED_NOTIFICATIONS, DEFERRED_REQUESTS, deferHandlers, type RegisterHandlers } from "../../src/acp/connection/deferred-handlers.ts";
import { registerSessionHandlers } from "../../src/acp/handlers/session-handlers.ts";
import type { AgentServices } from "../../src/sessions/services.ts";

/** An agent app with `initialize` and the deferred methods; `load` supplies their real handlers. */
function agentWith(load: () => Promise<RegisterHandlers>) {
  const app = acp.agent({ name: "deferred-test" });
  app.onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [] }));
  const deferred = deferHandlers(app, load);
  return { app, deferred };
}

async function withClient<T>(app: acp.AgentApp, run: (agent: acp.ClientContext) => Promise<T>): Promise<T> {
  return await acp.client({ name: "deferred-test-client" }).connectWith(app, async (agent) => {
    await agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    return await run(agent);
  });
}

/** Registers every listed method with a handler that answers its own name (and its params). */
const echoEveryMethod: RegisterHandlers = (app) => {
  for (const { method, params } of DEFERRED_REQUESTS) {
    const handler = (context: { params: unknown }) => ({ _meta: { method, params: context.params } });
    if (params === "own") (app.onRequest as (m: string, p: (raw: unknown) => unknown, h: typeof handler) => void)(method, parseOwn, handler);
    else (app.onRequest as (m: string, h: typeof handler) => void)(method, handler);
  }
  for (const method of DEFERRED_NOTIFICATIONS) (app.onNotification as (m: string, h: () => void) => void)(method, () => undefined);
};

function parseOwn(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || typeof (raw as { cwd?: unknown }).cwd !== "string") {
    throw new acp.RequestError(-32602, "Invalid params: cwd: expected a string");
  }
  return { parsed: true };
}

describe("deferred handlers", () => {
  test("the session handlers register exactly the deferred methods, so every stand-in finds its handler", async () => {
    const state = newConnectionState();
    const { app } = agentWith(async () => (recorder) => registerSessionHandlers(recorder, {} as AgentServices, state));
    // `logout` touches only the connection: it proves the real handlers loaded and passed the check against the list.
    const answer = await withClient(app, (agent) => agent.request(acp.methods.agent.logout, {}));
    expect(answer).toEqual({});
    expect(state.authenticated).toBe(false);
  });

  test("a module that registers a method the list does not name fails the call instead of leaving the method unserved", async () => {
    const { app } = agentWith(async () => (recorder) => {
      echoEveryMethod(recorder);
      (recorder.onRequest as (m: string, p: (raw: unknown) => unknown, h: () => unknown) => void)("session/unlisted", (raw) => raw, () => ({}));
    });
    const failure = await withClient(app, (agent) => agent.request(acp.methods.agent.logout, {}).then(() => "answered", (error: unknown) => error));
    expect(failure).toMatchObject({ code: -32603 });
  });

  test("the module loads once, ahead of any call when asked to, and later calls reach the real handlers", async () => {
    let loads = 0;
    const { app, deferred } = agentWith(async () => {
      loads += 1;
      return echoEveryMethod;
    });
    const answers = await withClient(app, async (agent) => {
      await Promise.all([deferred.prepare(), deferred.prepare()]);
      expect(loads).toBe(1);
      return await Promise.all([
        agent.request(acp.methods.agent.session.list, { cwd: "/" }),
        agent.request(acp.methods.agent.session.close, { sessionId: "sess_x" }),
      ]);
    });
    expect(loads).toBe(1);
    expect(answers.map((a) => (a as { _meta: { method: string } })._meta.method)).toEqual(["session/list", "session/close"]);
  });

  test("requests that arrive before the module has loaded wait for it and are each answered by their own handler", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { app } = agentWith(async () => {
      await gate;
      return echoEveryMethod;
    });
    const methods = [acp.methods.agent.session.list, acp.methods.agent.logout, acp.methods.agent.session.resume];
    const answered = await withClient(app, async (agent) => {
      const pending = methods.map((method) => agent.request(method as typeof acp.methods.agent.session.list, { sessionId: "sess_x", cwd: "/" } as never));
      release();
      return await Promise.all(pending);
    });
    expect(answered.map((a) => (a as { _meta: { method: string } })._meta.method)).toEqual(methods);
  });

  test("a method that parses its own params gets them parsed, and its parse errors reach the client as before", async () => {
    const { app } = agentWith(async () => echoEveryMethod);
    const [good, bad] = await withClient(app, async (agent) => [
      await agent.request("session/fork" as typeof acp.methods.agent.session.list, { cwd: "/x" } as never),
      await agent.request("session/fork" as typeof acp.methods.agent.session.list, { cwd: 5 } as never).then(
        () => undefined,
        (error: unknown) => error,
      ),
    ]);
    expect((good as { _meta: { params: unknown } })._meta.params).toEqual({ parsed: true });
    expect(bad).toMatchObject({ code: -32602, message: "Invalid params: cwd: expected a string" });
  });

  test("a load that fails fails that call, and the next call tries again", async () => {
    let attempts = 0;
    const { app } = agentWith(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error("module failed to load");
      return echoEveryMethod;
    });
    const [first, second] = await withClient(app, async (agent) => [
      await agent.request(acp.methods.agent.session.list, { cwd: "/" }).then(
        () => "answered",
        (error: unknown) => error,
      ),
      await agent.request(acp.methods.agent.session.list, { cwd: "/" }),
    ]);
    expect(first).toMatchObject({ code: -32603 });
    expect((second as { _meta: { method: string } })._meta.method).toBe("session/list");
    expect(attempts).toBe(2);
  });
});
