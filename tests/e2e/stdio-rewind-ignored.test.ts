/**
 * Snapshots around commands honour the project's `.gitignore` files (root and
 * nested, `!` re-including): what they ignore is neither copied nor put back
 * by `_session/rewind_files`. Ignore files the project holds are untrusted:
 * one that is a link to /proc, a FIFO or a file of more rules than a walk
 * applies is not applied (and named once), and the command still finishes.
 * Over stdio against the fake model server, on every runtime.
 */
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { agentText } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";

import { fakeModelSuite, fileActions, fingerprint, promptWithId, rewindFiles } from "../helpers/rewind-requests.ts";
import { startAgent } from "../helpers/session-agent.ts";

describe.each(RUNTIMES)("snapshots and ignored files on %s", (runtime) => {
  const suite = fakeModelSuite();

  test("what .gitignore files ignore is not recorded nor put back; hostile ignore files are not applied and the command finishes", async () => {
    suite.sandbox.write("project/.gitignore", "*.log\nbuild/\n!keep.log\n");
    suite.sandbox.write("project/sub/.gitignore", "local.txt\n!*.log\n");
    // Hostile ignore files: a link to /proc, a FIFO, and more rules than one walk applies.
    mkdirSync(join(suite.sandbox.project, "proc"), { recursive: true });
    symlinkSync("/proc/self/status", join(suite.sandbox.project, "proc/.gitignore"));
    mkdirSync(join(suite.sandbox.project, "fifo"), { recursive: true });
    execFileSync("mkfifo", [join(suite.sandbox.project, "fifo/.gitignore")]);
    suite.sandbox.write("project/big/.gitignore", `${Array.from({ length: 5000 }, (_, n) => `rule-${n}`).join("\n")}\nhuge.txt\n`);
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"] });
    try {
      const { sessionId } = await agent.newSession();
      const files = ["out.log", "keep.log", "build/a.js", "sub/local.txt", "sub/sub.log", "tracked.txt", "proc/p.txt", "fifo/f.txt", "big/huge.txt"];
      const command = files.map((f) => `mkdir -p $(dirname ${f}) && printf 'made\\n' > ${f}`).join("; ");
      suite.server.push({ toolCalls: [{ id: "b1", name: "bash", input: { command } }] }, { text: "done" });
      const before = agent.client.updates(sessionId).length;
      const sent = await promptWithId(agent, sessionId, "make files");
      const said = agentText(agent.client.updates(sessionId).slice(before));
      for (const folder of ["proc", "fifo", "big"]) expect(said).toContain(`${join(suite.sandbox.project, folder, ".gitignore")} were not applied`);
      expect(said).toContain("more than 2000 ignore rules");
      expect(said).toContain("(a FIFO)");

      const point = { messageId: sent.userMessageId, messageFingerprint: fingerprint("make files"), messageOccurrence: 1 };
      const dry = await rewindFiles(agent, { sessionId, beforeMessage: point, dryRun: true });
      // Ignored: out.log, build/, sub/local.txt. Re-included: keep.log (root `!`), sub/sub.log (nested `!`).
      expect(fileActions(dry)).toEqual({
        "keep.log": "delete (not applied)",
        "sub.log": "delete (not applied)",
        "tracked.txt": "delete (not applied)",
        "p.txt": "delete (not applied)",
        "f.txt": "delete (not applied)",
        "huge.txt": "delete (not applied)",
      });
      await rewindFiles(agent, { sessionId, beforeMessage: point });
      for (const gone of ["keep.log", "sub/sub.log", "tracked.txt", "big/huge.txt"]) expect(existsSync(join(suite.sandbox.project, gone))).toBe(false);
      for (const kept of ["out.log", "build/a.js", "sub/local.txt"]) expect(readFileSync(join(suite.sandbox.project, kept), "utf8")).toBe("made\n");
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);

  test("a command that changes the ignore rules does not make ignored files look created or deleted", async () => {
    suite.sandbox.write("project/rules/.gitignore", "secret.txt\n");
    suite.sandbox.write("project/rules/secret.txt", "the user's ignored file\n");
    suite.sandbox.write("project/rules/shown.txt", "the user's file\n");
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"] });
    try {
      const { sessionId } = await agent.newSession();
      // The command swaps which file is ignored, and creates one more.
      suite.server.push({ toolCalls: [{ id: "b2", name: "bash", input: { command: "cd rules && printf 'shown.txt\\n' > .gitignore && printf 'new\\n' > new.txt" } }] }, { text: "done" });
      const sent = await promptWithId(agent, sessionId, "swap rules");
      const point = { messageId: sent.userMessageId, messageFingerprint: fingerprint("swap rules"), messageOccurrence: 1 };
      const real = await rewindFiles(agent, { sessionId, beforeMessage: point });
      expect(fileActions(real)).toEqual({ ".gitignore": "restore", "new.txt": "delete" });
      expect(readFileSync(join(suite.sandbox.project, "rules/secret.txt"), "utf8")).toBe("the user's ignored file\n");
      expect(readFileSync(join(suite.sandbox.project, "rules/shown.txt"), "utf8")).toBe("the user's file\n");
      expect(readFileSync(join(suite.sandbox.project, "rules/.gitignore"), "utf8")).toBe("secret.txt\n");
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  }, 60_000);
});
