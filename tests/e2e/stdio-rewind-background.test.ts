/**
 * A background command's file changes: what it creates, changes and deletes
 * after the call that started it returned is recorded when it ends, counted
 * from the prompt that started it (not the prompt running when it ended),
 * and put back by `_session/rewind_files` like any command's, leaving a file
 * the user changed since as the user has it. Over stdio against the fake
 * model server, on every runtime; the command waits on a FIFO the test
 * writes, so its changes come after its call by construction.
 */
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, agentText } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";

import { fakeModelSuite, fileActions, fingerprint, promptWithId, rewindFiles } from "../helpers/rewind-requests.ts";
import { startAgent } from "../helpers/session-agent.ts";

describe.each(RUNTIMES)("a background command's changes on %s", (runtime) => {
  const suite = fakeModelSuite();
  const at = (relative: string) => join(suite.sandbox.project, relative);

  test("are recorded at its end, count from the prompt that started it, and are put back without overwriting the user's edit", async () => {
    suite.sandbox.write("project/bg-edited.txt", "original\n");
    suite.sandbox.write("project/bg-doomed.txt", "doomed\n");
    suite.sandbox.write("project/bg-user.txt", "original user\n");
    const go = join(suite.sandbox.root, "go.fifo");
    execFileSync("mkfifo", [go]);
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"] });
    try {
      const { sessionId } = await agent.newSession();
      const command = `read line < ${go}; printf 'late\\n' > bg-made.txt; printf 'changed\\n' > bg-edited.txt; printf 'changed user\\n' > bg-user.txt; rm bg-doomed.txt`;
      suite.server.push(
        { toolCalls: [{ id: "bg1", name: "bash", input: { command, background: true } }] },
        { text: "started" },
        { toolCalls: [{ id: "w1", name: "write", input: { path: "other.txt", content: "other\n" } }] },
        { text: "written" },
      );
      const first = await promptWithId(agent, sessionId, "start it");
      const second = await promptWithId(agent, sessionId, "meanwhile");
      // The command goes on only now, after both prompts: its changes come after its call returned.
      expect(existsSync(at("bg-made.txt"))).toBe(false);
      writeFileSync(go, "go\n");
      // Four files by the command, and the agent's own write made while it ran (recorded twice, consistently).
      await waitFor(() => agentText(agent.client.updates(sessionId)).includes("the 5 file(s) changed in the session's folders while it ran are recorded"), 30_000, "the background command's changes recorded");
      expect(readFileSync(at("bg-made.txt"), "utf8")).toBe("late\n");

      const pointOf = (answer: { userMessageId?: string }, text: string) => ({ messageId: answer.userMessageId, messageFingerprint: fingerprint(text), messageOccurrence: 1 });
      // From the second prompt: only its own write — the command's changes belong to the first.
      expect(fileActions(await rewindFiles(agent, { sessionId, beforeMessage: pointOf(second, "meanwhile"), dryRun: true }))).toEqual({ "other.txt": "delete (not applied)" });
      // The user edits a file the command changed.
      writeFileSync(at("bg-user.txt"), "the user's own\n");
      const real = await rewindFiles(agent, { sessionId, beforeMessage: pointOf(first, "start it") });
      expect(fileActions(real)).toEqual({
        "bg-made.txt": "delete",
        "bg-edited.txt": "restore",
        "bg-user.txt": "conflict (not applied)",
        "bg-doomed.txt": "recreate",
        "other.txt": "delete",
      });
      expect(existsSync(at("bg-made.txt"))).toBe(false);
      expect(readFileSync(at("bg-edited.txt"), "utf8")).toBe("original\n");
      expect(readFileSync(at("bg-doomed.txt"), "utf8")).toBe("doomed\n");
      expect(readFileSync(at("bg-user.txt"), "utf8")).toBe("the user's own\n");
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("made as the session closes (the command ends with it) are recorded before its journal closes, and a rewind after a reload puts them back", async () => {
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"] });
    let sessionId = "";
    let started: { userMessageId?: string } = {};
    try {
      ({ sessionId } = await agent.newSession());
      // Writes its file only when the session's close ends it (SIGTERM): a change no call's window holds.
      const command = `trap 'printf "closing\\n" > bg-at-close.txt; exit 0' TERM; echo ready; sleep 1000 & wait $!`;
      suite.server.push({ toolCalls: [{ id: "bgc", name: "bash", input: { command, background: true } }] }, { text: "started" });
      started = await promptWithId(agent, sessionId, "start the watcher");
      expect(existsSync(at("bg-at-close.txt"))).toBe(false);
      await agent.client.agent.request(acp.methods.agent.session.close, { sessionId });
      expect(readFileSync(at("bg-at-close.txt"), "utf8")).toBe("closing\n");
    } finally {
      expect(await agent.stop()).toBe(0);
    }
    const next = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"] });
    try {
      await next.client.agent.request(acp.methods.agent.session.load, { sessionId, cwd: suite.sandbox.project, mcpServers: [] });
      const point = { messageId: started.userMessageId, messageFingerprint: fingerprint("start the watcher"), messageOccurrence: 1 };
      expect(fileActions(await rewindFiles(next, { sessionId, beforeMessage: point, dryRun: true }))).toEqual({ "bg-at-close.txt": "delete (not applied)" });
    } finally {
      expect(await next.stop()).toBe(0);
    }
  }, 60_000);
});
