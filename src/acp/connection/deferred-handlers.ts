/**
 * Handlers that load on first use. Every method but `initialize` needs the
 * sessions layer, the engine and the tools; compiling them before the first
 * answer would make every editor wait for code `initialize` never runs. The
 * methods are registered with the SDK at once (so none is ever "not found"
 * and the SDK still parses their params); their bodies load the first time
 * one is called, or once `initialize` is answered (see idle-warm-up.ts).
 * @module
 */
import type { HandlerApp } from "./protocol-handlers.ts";
import { methods, UNSTABLE_METHODS } from "../sdk.ts";

/**
 * Requests whose handlers load on demand; `params: "own"` marks a method that parses its own params.
 *
 * The order of registration does not decide the order of work: the SDK dispatches messages
 * concurrently, so a cancel is applied by the connection guard as it arrives (cancel-in-order.ts).
 */
export const DEFERRED_REQUESTS: readonly { method: string; params?: "own" }[] = [
  { method: methods.agent.authenticate },
  { method: methods.agent.logout },
  // Unstable: provider routes and the auth status (handlers/providers.ts, auth-status.ts), with their own parsers.
  { method: UNSTABLE_METHODS.authStatus, params: "own" },
  { method: UNSTABLE_METHODS.providersList, params: "own" },
  { method: UNSTABLE_METHODS.providersSet, params: "own" },
  { method: UNSTABLE_METHODS.providersDisable, params: "own" },
  { method: methods.agent.session.new },
  { method: methods.agent.session.close },
  { method: methods.agent.session.delete },
  { method: methods.agent.session.list, params: "own" },
  { method: methods.agent.session.load },
  { method: methods.agent.session.resume },
  { method: "session/fork", params: "own" },
  { method: "session/set_model", params: "own" },
  { method: "session/set_title", params: "own" },
  { method: "session/archive", params: "own" },
  { method: "session/unarchive", params: "own" },
  { method: "session/status", params: "own" },
  // Its own parser keeps the client's `messageId`, which the SDK's stable schema would drop (params/prompt-params.ts).
  { method: methods.agent.session.prompt, params: "own" },
  { method: methods.agent.session.setMode },
  { method: methods.agent.session.setConfigOption },
  // The steering extension (handlers/steering.ts); the SDK has no schema for it.
  { method: "_session/steering", params: "own" },
  // The JetBrains AIR rewind extension (handlers/rewind.ts).
  { method: "_session/rewind", params: "own" },
  { method: "_session/rewind_files", params: "own" },
];

/** Notifications whose handlers load on demand. */
export const DEFERRED_NOTIFICATIONS: readonly string[] = [methods.agent.session.cancel];

type Handler = (context: { params: unknown }) => unknown;
type Parser = (raw: unknown) => unknown;
interface Recorded {
  parse?: Parser;
  handler: Handler;
}

/** Registers the handlers of a module on something that only remembers them. */
export type RegisterHandlers = (app: HandlerApp) => void;

/** What `deferHandlers` gives back: start loading without waiting for a call. */
export interface DeferredHandlers {
  /** Loads the handlers now (once); settles when they are loaded, and never rejects: a failure is reported by the first call that needs them. */
  prepare(): Promise<void>;
}

function recorder(requests: Map<string, Recorded>, notifications: Map<string, Recorded>): HandlerApp {
  const record = (into: Map<string, Recorded>) => (method: string, handlerOrParse: unknown, handler?: unknown) => {
    if (into.has(method)) throw new Error(`handler for ${method} registered twice`);
    into.set(method, handler ? { parse: handlerOrParse as Parser, handler: handler as Handler } : { handler: handlerOrParse as Handler });
    return app;
  };
  const app = { onRequest: record(requests), onNotification: record(notifications) } as unknown as HandlerApp;
  return app;
}

/** Fails unless the module registered exactly the methods listed above, each in the form listed. */
function checkRegistrations(requests: Map<string, Recorded>, notifications: Map<string, Recorded>): void {
  const listed = new Map(DEFERRED_REQUESTS.map((r) => [r.method, r.params === "own"]));
  for (const [method, recorded] of requests) {
    if (!listed.has(method)) throw new Error(`request handler for ${method} is not listed in DEFERRED_REQUESTS`);
    if (listed.get(method) !== Boolean(recorded.parse)) throw new Error(`request ${method}: params parser does not match DEFERRED_REQUESTS`);
  }
  for (const method of listed.keys()) if (!requests.has(method)) throw new Error(`no handler registered for listed request ${method}`);
  const listedNotifications = new Set(DEFERRED_NOTIFICATIONS);
  for (const method of notifications.keys()) {
    if (!listedNotifications.has(method)) throw new Error(`notification handler for ${method} is not listed in DEFERRED_NOTIFICATIONS`);
  }
  for (const method of listedNotifications) if (!notifications.has(method)) throw new Error(`no handler registered for listed notification ${method}`);
}

/**
 * Registers every deferred method on `app` with a stand-in that runs the
 * real handler from `load` (loaded once). Once loaded, calls go straight to
 * the real handlers, with no extra turn of the event loop.
 */
export function deferHandlers(app: HandlerApp, load: () => Promise<RegisterHandlers>): DeferredHandlers {
  let loaded: { requests: Map<string, Recorded>; notifications: Map<string, Recorded> } | undefined;
  let loading: Promise<NonNullable<typeof loaded>> | undefined;
  const ensure = () =>
    (loading ??= load().then((register) => {
      const requests = new Map<string, Recorded>();
      const notifications = new Map<string, Recorded>();
      register(recorder(requests, notifications));
      checkRegistrations(requests, notifications);
      return (loaded = { requests, notifications });
    }));
  // A failed load is not cached: the next call tries again and reports its own failure.
  const loadOnce = () => ensure().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });

  const run = (recorded: Recorded, context: { params: unknown }) =>
    recorded.handler(recorded.parse ? { ...context, params: recorded.parse(context.params) } : context);

  for (const { method, params } of DEFERRED_REQUESTS) {
    const standIn = (context: { params: unknown }) =>
      loaded ? run(loaded.requests.get(method)!, context) : loadOnce().then((l) => run(l.requests.get(method)!, context));
    // The real parser runs inside the stand-in; its errors reach the client exactly as a thrown handler error does.
    if (params === "own") (app.onRequest as (m: string, p: Parser, h: Handler) => void)(method, (raw) => raw, standIn);
    else (app.onRequest as (m: string, h: Handler) => void)(method, standIn);
  }
  for (const method of DEFERRED_NOTIFICATIONS) {
    const standIn = (context: { params: unknown }) =>
      loaded ? run(loaded.notifications.get(method)!, context) : loadOnce().then((l) => run(l.notifications.get(method)!, context));
    (app.onNotification as (m: string, h: Handler) => void)(method, standIn);
  }

  return {
    prepare: () => (loaded ? Promise.resolve() : loadOnce().then(() => undefined, () => undefined)),
  };
}
