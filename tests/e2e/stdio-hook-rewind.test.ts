/**
 * What hooks add to a conversation is not the user's: over stdio on each
 * runtime, with a UserPromptSubmit hook that prints context for the model and
 * a Stop hook that sends the model on once, the editor's `_session/rewind`
 * names the prompt by the fingerprint of the text it sent, `/rewind` lists
 * only what the user typed (the Stop hook's reason is no point), and a
 * `session/load` replays neither as the user's words.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, agentText } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { group, script, writeHooks } from "../helpers/hook-scripts.ts";
import { fakeModelSuite, fingerprint, promptWithId, rewind, rewindFiles } from "../helpers/rewind-requests.ts";
import { startAgent } from "../helpers/session-agent.ts";

describe.each(RUNTIMES)("hooks' words in a conversation on %s", (runtime) => {
  const suite = fakeModelSuite();

  /** A user home whose hooks add context to every prompt and send the model on once after its first answer. */
  function hookHome(): string {
    const userHome = join(suite.sandbox.root, `user-${runtime}`);
    const state = join(userHome, "state");
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, "stop-once"), "");
    const scripts = join(userHome, "hook-scripts");
    writeHooks(join(userHome, ".claude", "settings.json"), {
      UserPromptSubmit: [group(script(scripts, "context.sh", `cat >/dev/null; echo 'HOOK-CONTEXT-MARKER'`))],
      Stop: [group(script(scripts, "stop.sh", `cat >/dev/null; if [ -f '${state}/stop-once' ]; then rm '${state}/stop-once'; echo 'keep going STOP-FEEDBACK' >&2; exit 2; fi`))],
    });
    return userHome;
  }

  test("the prompt's fingerprint is the text the client sent; the Stop hook's reason is no rewind point; a load replays neither as the user's", async () => {
    const env = { HOME: hookHome() };
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"], env });
    let sessionId = "";
    try {
      ({ sessionId } = await agent.newSession());
      suite.server.push({ text: "first answer" }, { text: "second answer" });
      const first = await promptWithId(agent, sessionId, "fix the bug");
      expect(first.stopReason).toBe("end_turn");
      // The model read both the hook's context and the Stop hook's reason.
      const seen = JSON.stringify(suite.server.requests.at(-1)!.body.messages);
      expect(seen).toContain("HOOK-CONTEXT-MARKER");
      expect(seen).toContain("STOP-FEEDBACK");
      suite.server.push({ text: "third answer" });
      const second = await promptWithId(agent, sessionId, "and the test");

      // Only the two prompts the user typed are points to go back to.
      const before = agent.client.updates(sessionId).length;
      await agent.prompt(sessionId, "/rewind");
      const listed = agentText(agent.client.updates(sessionId).slice(before));
      expect(listed).toContain("1. “fix the bug”");
      expect(listed).toContain("2. “and the test”");
      expect(listed).not.toContain("STOP-FEEDBACK");
      expect(listed).not.toContain("3.");

      // The editor names a prompt by the text it sent: by the agent's id (the files' dry run), and by fingerprint alone.
      const firstPoint = { messageId: first.userMessageId, messageFingerprint: fingerprint("fix the bug"), messageOccurrence: 1 };
      expect((await rewindFiles(agent, { sessionId, beforeMessage: firstPoint, dryRun: true })).files).toEqual([]);
      const secondPoint = { messageId: "editor-own-id", messageFingerprint: fingerprint("and the test"), messageOccurrence: 1 };
      expect(await rewind(agent, { sessionId, beforeMessage: secondPoint })).toMatchObject({ rewound: true });
    } finally {
      expect(await agent.stop()).toBe(0);
    }

    // Another process loads the session: the user's prompt comes back as they typed it, nothing hooks added with it.
    const reloaded = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"], env });
    try {
      await reloaded.client.agent.request(acp.methods.agent.session.load, { sessionId, cwd: suite.sandbox.project, mcpServers: [] });
      const userWords = reloaded.client
        .updates(sessionId)
        .flatMap((u) => (u.sessionUpdate === "user_message_chunk" && u.content.type === "text" ? [u.content.text] : []));
      expect(userWords).toEqual(["fix the bug"]);
    } finally {
      expect(await reloaded.stop()).toBe(0);
    }
  }, 60_000);
});
