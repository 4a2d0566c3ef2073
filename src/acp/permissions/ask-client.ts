/**
 * One `session/request_permission` round trip with the editor, bounded in
 * time and cancelled with the turn. It never throws: every way it can go
 * wrong becomes an outcome the caller turns into a block message.
 * @module
 */
import { boundedClientRequest } from "../client/bounded-client-request.ts";
import { methods, type AgentContext, type PermissionOption, type ToolCallUpdate } from "../sdk.ts";

export type AskOutcome =
  | { outcome: "selected"; optionId: string }
  | { outcome: "cancelled" }
  | { outcome: "failed"; reason: string };

export interface AskRequest {
  client: AgentContext;
  sessionId: string;
  toolCall: ToolCallUpdate;
  options: PermissionOption[];
  /** The turn's signal: cancelling the turn cancels the request. */
  signal: AbortSignal;
  timeoutMs: number;
}

export async function askClient(request: AskRequest): Promise<AskOutcome> {
  const answer = await boundedClientRequest(request.signal, request.timeoutMs, (cancellationSignal) =>
    request.client.request(
      methods.client.session.requestPermission,
      {
        sessionId: request.sessionId,
        toolCall: request.toolCall,
        options: request.options,
        // When the request times out, so a client can show the time left to answer.
        _meta: { "acp-edge/expiresAt": new Date(Date.now() + request.timeoutMs).toISOString() },
      },
      { cancellationSignal, stopWaitingOnCancel: true },
    ),
  );
  switch (answer.ended) {
    case "cancelled":
      return { outcome: "cancelled" };
    case "timeout":
      return { outcome: "failed", reason: `the editor did not answer the permission request within ${answer.seconds} s` };
    case "failed":
      return { outcome: "failed", reason: `the editor could not answer the permission request (${answer.message})` };
  }
  const outcome = answer.response.outcome;
  if (outcome.outcome === "selected") {
    if (request.options.some((o) => o.optionId === outcome.optionId)) return outcome;
    return { outcome: "failed", reason: `the editor chose an option that was not offered ("${outcome.optionId}")` };
  }
  return { outcome: "cancelled" };
}
