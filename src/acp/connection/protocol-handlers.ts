/**
 * The one door through which handlers are registered on the SDK's app, using
 * its public `onRequest`/`onNotification` only. Every request handler is
 * wrapped on the way in, so that:
 * - nothing but `initialize` runs before an `initialize` succeeded (the
 *   SDK's own gate is on only when `initialize` is registered without a
 *   parser, and acp-edge parses it itself: see initialize-params.ts);
 * - a handler's failure becomes a protocol error: the sessions layer refuses
 *   in its own terms, and this is the one place they are translated;
 * - the connection hears when each request is done.
 * @module
 */
import { protocolError } from "../errors.ts";
import { methods, RequestError, type AgentApp } from "../sdk.ts";
import type { JsonRpcId } from "./jsonrpc-envelope.ts";

/** What handler modules register on: the SDK app's two registration methods. */
export type HandlerApp = Pick<AgentApp, "onRequest" | "onNotification">;

/** What the connection hears from its handlers. */
export interface HandlerHooks {
  /** After every request handler, however it ended. */
  afterEach(): void;
  /** When an `initialize` succeeded, with its request id (before its answer is written). */
  initialized(requestId: JsonRpcId): void;
}

type Handler = (context: { requestId: JsonRpcId }) => unknown;

/** The error a request before `initialize` gets, as the SDK's own gate words it. */
function notInitialized(method: string): RequestError {
  return new RequestError(-32600, `Invalid request: ACP connection must be initialized before '${method}'`);
}

/** Registers on `app` through the wrapper described above. */
export function protocolHandlers(app: AgentApp, hooks: HandlerHooks): HandlerApp {
  let initialized = false;
  const wrap =
    (method: string, handler: Handler): Handler =>
    async (context) => {
      try {
        if (!initialized && method !== methods.agent.initialize) throw notInitialized(method);
        const result = await handler(context);
        if (method === methods.agent.initialize) {
          // Before the answer goes out (the connection guard holds later messages until it is written).
          initialized = true;
          hooks.initialized(context.requestId);
        }
        return result;
      } catch (error) {
        throw protocolError(error);
      } finally {
        hooks.afterEach();
      }
    };
  const register = app.onRequest.bind(app) as (method: string, ...rest: unknown[]) => AgentApp;
  const onRequest = (method: string, ...rest: unknown[]) => {
    const handler = rest.pop() as Handler;
    register(method, ...rest, wrap(method, handler));
    return app;
  };
  return { onRequest: onRequest as HandlerApp["onRequest"], onNotification: app.onNotification.bind(app) };
}
