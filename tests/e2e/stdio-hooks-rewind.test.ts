/**
 * A formatter as the user's PostToolUse hook (`~/.claude/settings.json`) and
 * file rewind: the hook rewrites what a `bash` call wrote, and the command's
 * checkpoint is taken after the hook, so `_session/rewind_files` puts the
 * files back as they were before the prompt — no "changed since" conflict
 * with the hook's own rewrite. Over stdio against the fake model server, on
 * every runtime.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { group, script, writeHooks } from "../helpers/hook-scripts.ts";
import { fakeModelSuite, fileActions, fingerprint, promptWithId, rewindFiles } from "../helpers/rewind-requests.ts";
import { startAgent } from "../helpers/session-agent.ts";

describe.each(RUNTIMES)("a PostToolUse formatter hook and file rewind on %s", (runtime) => {
  const suite = fakeModelSuite();
  const at = (relative: string) => join(suite.sandbox.project, relative);

  test("the hook's rewrite of a command's files is inside the prompt's checkpoint: the rewind restores them without a conflict", async () => {
    const userHome = join(suite.sandbox.root, "user");
    suite.sandbox.write("project/fmt-old.txt", "original\n");
    // The "formatter": rewrites both files the command wrote, as `prettier --write` would.
    const formatter = script(join(userHome, "hook-scripts"), "format.sh", `cat >/dev/null; printf 'formatted\\n' > '${at("fmt-old.txt")}'; printf 'formatted\\n' > '${at("fmt-new.txt")}'`);
    writeHooks(join(userHome, ".claude", "settings.json"), { PostToolUse: [group(formatter, "Bash")] });
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"], env: { HOME: userHome } });
    try {
      const { sessionId } = await agent.newSession();
      suite.server.push({ toolCalls: [{ id: "b1", name: "bash", input: { command: "printf 'raw\\n' > fmt-old.txt; printf 'raw\\n' > fmt-new.txt" } }] }, { text: "done" });
      const prompt = await promptWithId(agent, sessionId, "write them");
      expect(readFileSync(at("fmt-old.txt"), "utf8")).toBe("formatted\n");
      expect(readFileSync(at("fmt-new.txt"), "utf8")).toBe("formatted\n");

      const point = { messageId: prompt.userMessageId, messageFingerprint: fingerprint("write them"), messageOccurrence: 1 };
      expect(fileActions(await rewindFiles(agent, { sessionId, beforeMessage: point }))).toEqual({ "fmt-old.txt": "restore", "fmt-new.txt": "delete" });
      expect(readFileSync(at("fmt-old.txt"), "utf8")).toBe("original\n");
      expect(existsSync(at("fmt-new.txt"))).toBe(false);
    } finally {
      await agent.kill();
    }
  }, 120_000);
});
