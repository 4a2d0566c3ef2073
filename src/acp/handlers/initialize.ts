/**
 * `initialize`: version negotiation and the capabilities acp-edge really has.
 * @module
 */
import { PACKAGE_VERSION } from "../../config/version.ts";
import { authMethodsFor } from "./auth-methods.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { parseInitializeParams } from "../params/initialize-params.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { methods, PROTOCOL_VERSION, type InitializeResponse } from "../sdk.ts";
import type { AgentServices } from "../../sessions/services.ts";

/** The unstable session methods (which the SDK's stable types do not name), advertised because they are served. */
const UNSTABLE_SESSION_CAPABILITIES = {
  any: { fork: {}, title: {}, archive: {}, status: {} },
  scoped: { title: {}, archive: {}, status: {} },
};

/** `auth/status` (with `auth/status_update`) and `providers/list|set|disable`, served by handlers/auth-status.ts and providers.ts. */
const UNSTABLE_AUTH_CAPABILITIES = { status: {} };
const UNSTABLE_AGENT_CAPABILITIES = { providers: {} };

/** Registers `initialize` (through `protocolHandlers`, which also gates every other method on it). */
export function registerInitialize(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(methods.agent.initialize, parseInitializeParams, ({ params }): InitializeResponse => {
    state.clientCapabilities = params.clientCapabilities ?? {};
    // v1 is the only version acp-edge speaks; any requested version gets it (the client decides whether to go on).
    const answer: InitializeResponse = {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        // A connection scoped to one durable session cannot delete or fork it (REST does that); title, archive and status reach its own session only.
        sessionCapabilities: {
          list: {},
          resume: {},
          close: {},
          additionalDirectories: {},
          ...(state.scope ? {} : { delete: {} }),
          ...UNSTABLE_SESSION_CAPABILITIES[state.scope ? "scoped" : "any"],
        },
        // `auth.status` and `providers` are unstable (the SDK's stable types do not name them yet).
        auth: { logout: {}, ...UNSTABLE_AUTH_CAPABILITIES },
        ...UNSTABLE_AGENT_CAPABILITIES,
        // A prompt sent while a turn runs waits for it (there is no standard flag yet; claude-agent-acp's).
        _meta: { claudeCode: { promptQueueing: true } },
      },
      authMethods: authMethodsFor(services, state.clientCapabilities),
      agentInfo: { name: "acp-edge", title: "acp-edge", version: PACKAGE_VERSION },
      // `_session/steering`, advertised where claude-agent-acp and codex-acp advertise it; the AIR extension's rewind.
      _meta: { steering: { supported: true }, jetbrains: { air: { version: 1, capabilities: ["sessionRewind", "sessionRewindFiles"] } } },
    };
    return answer;
  });
}
