/**
 * What a client is told right after a session becomes available to it —
 * strictly after the response that opened the session (the connection
 * guard's after-answer event): notices (such as a model that was replaced)
 * and the slash commands. Then the session's model client is made ready for
 * the first prompt.
 * @module
 */
import { log } from "../../runtime/log.ts";
import type { LiveSession } from "../../sessions/live-session.ts";
import { availableCommands } from "../../sessions/commands/slash-commands.ts";
import type { ConnectionState } from "../connection/connection-state.ts";
import { warmUpAfterSessionOpen } from "../connection/idle-warm-up.ts";
import type { JsonRpcId } from "../connection/jsonrpc-envelope.ts";
import { methods, type AgentContext } from "../sdk.ts";

/** Sends this client the session's notices and commands once the answer to `requestId` (which opened it) is written. */
export function announceSession(state: ConnectionState, requestId: JsonRpcId, client: AgentContext, live: LiveSession): void {
  state.afterAnswer(requestId, () => {
    const notices = live.announce();
    void (async () => {
      for (const text of notices) {
        await client.notify(methods.client.session.update, { sessionId: live.id, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${text}\n` } } });
      }
      await client.notify(methods.client.session.update, {
        sessionId: live.id,
        update: { sessionUpdate: "available_commands_update", availableCommands: availableCommands(live) },
      });
    })().catch((error) => log.debug("could not announce the session", error));
    // Then, while the client reads those, the model client gets ready for the first prompt.
    warmUpAfterSessionOpen(live);
  });
}
