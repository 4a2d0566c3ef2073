/**
 * `session/cancel` in the order the client sent it. The SDK dispatches
 * messages concurrently (each handler after a number of awaits that depends
 * on where it was registered), so its own cancel handler could run before the
 * handler of a prompt sent earlier, or after that of a prompt sent later. The
 * connection guard instead reports each cancel as it passes, with its place
 * in the arrival order, before anything sent after it reaches the SDK: the
 * running turn and every queued prompt stop at once, and a prompt sent
 * before the cancel whose handler has not yet claimed its turn sees the
 * cancel's place when it does, and is answered `cancelled` (stop means stop).
 * Prompts sent after the cancel run normally.
 * @module
 */
import type { AgentServices } from "../../sessions/services.ts";
import type { ConnectionState } from "./connection-state.ts";
import type { JsonRpcId } from "./jsonrpc-envelope.ts";
import { checkScope } from "../handlers/session-access.ts";

/** Applies a cancel that arrived at `arrival`: any attached client may cancel; other sessions are not its business. */
export function cancelInOrder(services: AgentServices, state: ConnectionState, sessionId: string, arrival: number): void {
  try {
    checkScope(state, sessionId);
  } catch {
    return;
  }
  if (!state.sessions.has(sessionId)) return;
  state.cancelledAt.set(sessionId, arrival);
  // Only the live session this connection is a client of: one archived or deleted and opened again since is another's.
  const live = services.sessions.get(sessionId);
  if (live?.hasClient(state.id)) live.cancel();
}

/** Whether this connection cancelled the session after it sent the request `requestId`. */
export function cancelledSince(state: ConnectionState, sessionId: string, requestId: JsonRpcId): boolean {
  const cancelled = state.cancelledAt.get(sessionId);
  const arrival = state.arrivalOf(requestId);
  return cancelled !== undefined && arrival !== undefined && arrival < cancelled;
}
