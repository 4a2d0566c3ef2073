/**
 * `resumeAtMessage` of `_session/rewind` (the JetBrains AIR extension): the
 * last assistant message the client keeps, named like `beforeMessage`. The
 * agent checks it against its own conversation — by id, or by fingerprint
 * and occurrence among assistant messages when the id is not one it knows —
 * and a guard naming any other message (or given for the first prompt)
 * rewinds nothing. Over stdio against the fake model server, every runtime.
 */
import { describe, expect, test } from "bun:test";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { rpcError } from "../helpers/expect-error.ts";
import { conversation } from "../helpers/queue-steer.ts";
import { fakeModelSuite, fingerprint, promptWithId, rewind } from "../helpers/rewind-requests.ts";
import { startAgent } from "../helpers/session-agent.ts";

describe.each(RUNTIMES)("resumeAtMessage on %s", (runtime) => {
  const suite = fakeModelSuite();

  test("a guard naming the message the conversation resumes at rewinds; one naming any other message, or a first prompt's, changes nothing", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: [] });
    try {
      const { sessionId } = await agent.newSession();
      // Two replies with the same text: the occurrence tells them apart.
      suite.server.push({ text: "same reply" }, { text: "same reply" }, { text: "third reply" });
      const one = await promptWithId(agent, sessionId, "prompt one");
      const two = await promptWithId(agent, sessionId, "prompt two");
      const three = await promptWithId(agent, sessionId, "prompt three");
      const replyIds = [...new Set(agent.client.updates(sessionId).flatMap((u) => (u.sessionUpdate === "agent_message_chunk" && u.messageId ? [u.messageId] : [])))];
      expect(replyIds).toHaveLength(3);
      const point = (messageId: string | undefined, text: string, occurrence = 1) => ({ messageId, messageFingerprint: fingerprint(text), messageOccurrence: occurrence });
      const beforeThree = point(three.userMessageId, "prompt three");

      // Each refused, naming the guard; none changes the conversation.
      const refusals = [
        // The reply to prompt one, not the one just before prompt three.
        { beforeMessage: beforeThree, resumeAtMessage: point(replyIds[0], "same reply") },
        // The right id with another text.
        { beforeMessage: beforeThree, resumeAtMessage: point(replyIds[1], "third reply") },
        // An unknown id with the first occurrence of the text, not the second.
        { beforeMessage: beforeThree, resumeAtMessage: point("restored-elsewhere", "same reply", 1) },
        // A reply after the point.
        { beforeMessage: beforeThree, resumeAtMessage: point(replyIds[2], "third reply") },
        // Nothing comes before the first prompt.
        { beforeMessage: point(one.userMessageId, "prompt one"), resumeAtMessage: point(replyIds[0], "same reply") },
      ];
      for (const params of refusals) {
        const error = await rpcError(rewind(agent, { sessionId, ...params }), -32602);
        expect(error.message).toContain("resumeAtMessage");
        expect(error.message).toContain("nothing was rewound");
      }
      for (const bad of ["the reply", { messageId: replyIds[1] }, { ...point(replyIds[1], "same reply"), messageFingerprint: "sha256:zz" }]) {
        await rpcError(rewind(agent, { sessionId, beforeMessage: beforeThree, resumeAtMessage: bad }), -32602);
      }
      suite.server.push({ text: "intact" });
      const base = suite.server.requests.length;
      const four = await promptWithId(agent, sessionId, "prompt four");
      expect(conversation(suite.server.requests[base]!)).toEqual(["user:prompt one", "assistant:same reply", "user:prompt two", "assistant:same reply", "user:prompt three", "assistant:third reply", "user:prompt four"]);

      // Found by id: back to before prompt four, resuming at the third reply.
      expect(await rewind(agent, { sessionId, beforeMessage: point(four.userMessageId, "prompt four"), resumeAtMessage: point(replyIds[2], "third reply") })).toEqual({ rewound: true });
      // Found by fingerprint and occurrence (an id the agent does not know): the second "same reply".
      expect(await rewind(agent, { sessionId, beforeMessage: beforeThree, resumeAtMessage: point("restored-elsewhere", "same reply", 2) })).toEqual({ rewound: true });
      // Absent or null for the first prompt.
      expect(await rewind(agent, { sessionId, beforeMessage: point(two.userMessageId, "prompt two"), resumeAtMessage: null })).toEqual({ rewound: true });
      suite.server.push({ text: "after" });
      const next = suite.server.requests.length;
      await promptWithId(agent, sessionId, "prompt five");
      expect(conversation(suite.server.requests[next]!)).toEqual(["user:prompt one", "assistant:same reply", "user:prompt five"]);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);
});
