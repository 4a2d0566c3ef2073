/**
 * `_session/steering` (the extension claude-agent-acp and codex-acp serve):
 * a message for the turn that runs, answered `{outcome: "injected"}` once the
 * turn has it; `startedNewTurn` once a turn of its own has started (its
 * updates follow that answer); `promptRequired` with `reason:
 * "noRunningTurn"` when the caller asked not to start one. The message is
 * never read as a slash command. `session/inject` is not served: its shape is
 * not settled (see docs/protocol.md).
 * @module
 */
import { restoreInteractiveJit } from "../../runtime/host/jit-policy.ts";
import type { AgentServices } from "../../sessions/services.ts";
import { steerSession } from "../../sessions/turns/steer-session.ts";
import { clientTurnOptions } from "../client/client-turn.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { eitherSignal } from "../../runtime/either-signal.ts";
import { planPrompt } from "../params/prompt-content.ts";
import { promptBudget } from "../../sessions/turns/prompt-budget.ts";
import type { HandlerApp } from "../connection/protocol-handlers.ts";
import { RequestError } from "../sdk.ts";
import { attachedSession } from "./session-access.ts";
import { parseSteeringParams } from "../params/steering-params.ts";

/** The extension's method name. */
export const STEERING_METHOD = "_session/steering";

/** What `_session/steering` answers. */
export type SteeringResponse = { outcome: "injected" } | { outcome: "startedNewTurn" } | { outcome: "promptRequired"; reason: "noRunningTurn" };

/** Registers `_session/steering`. */
export function registerSteering(app: HandlerApp, services: AgentServices, state: ConnectionState): void {
  app.onRequest(STEERING_METHOD, parseSteeringParams, async ({ params, client, signal, requestId }): Promise<SteeringResponse> => {
    const live = attachedSession(services, state, params.sessionId);
    // Refused (-32602) before it can join anything or anything is read: audio, an empty message, a bad image, over budget.
    const plan = await planPrompt(params.prompt, live.agent.workspace, promptBudget(live.agent.model.info.contextWindow));
    // A turn it starts is dropped when the request is cancelled before it starts; once it started (and says so), the
    // request is done and only a session cancel, this client leaving or the session closing stops it.
    const cancelled = eitherSignal(signal, state.inputEnded);
    let result;
    try {
      result = await steerSession(services, live, {
        clientId: state.id,
        size: plan.bytes,
        readPrompt: () => plan.read(),
        signal: cancelled.signal,
        turn: clientTurnOptions(live, client, state),
        ...(params.idleBehavior ? { idleBehavior: params.idleBehavior } : {}),
        answerWritten: () => {
          cancelled.releaseFirst();
          return new Promise<void>((resolve) => state.afterAnswer(requestId, resolve));
        },
      });
    } catch (error) {
      cancelled.release();
      throw error;
    }
    void result.turnOver.then(() => {
      cancelled.release();
      if (result.outcome === "startedNewTurn") restoreInteractiveJit();
    });
    switch (result.outcome) {
      case "injected":
      case "startedNewTurn":
        return { outcome: result.outcome };
      case "promptRequired":
        return { outcome: "promptRequired", reason: "noRunningTurn" };
      case "cancelled":
        throw new RequestError(-32800, "Request cancelled: the turn this steering message was to start was cancelled before it started");
    }
  });
}
