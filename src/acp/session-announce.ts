/**
 * What a client is told right after a session becomes available to it —
 * strictly after the response that opened the session: notices (such as a
 * model that was replaced) and the slash commands. Then the session's model
 * client is made ready for the first prompt.
 * @module
 */
import { log } from "../runtime/log.ts";
import { availableCommands } from "../sessions/slash-commands.ts";
import { warmUpAfterSessionOpen } from "./idle-warm-up.ts";
import { methods, type AgentContext } from "./sdk.ts";
import type { AgentServices } from "../sessions/services.ts";
import type { LiveSession } from "../sessions/live-session.ts";

/** Sends this client the session's notices and commands, just after the response that opened it. */
export function announceSession(client: AgentContext, live: LiveSession, _services: AgentServices): void {
  // A timer, not a microtask: the SDK has queued the response by the time it fires.
  setTimeout(() => {
    const notices = live.notices.splice(0);
    live.announced = true;
    void (async () => {
      for (const text of notices) {
        await client.notify(methods.client.session.update, { sessionId: live.agent.id, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${text}\n` } } });
      }
      await client.notify(methods.client.session.update, {
        sessionId: live.agent.id,
        update: { sessionUpdate: "available_commands_update", availableCommands: availableCommands(live.templates) },
      });
    })().catch((error) => log.debug("could not announce the session", error));
    // Then, while the client reads those, the model client gets ready for the first prompt.
    warmUpAfterSessionOpen(live);
  }, 0);
}
