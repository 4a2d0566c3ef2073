/**
 * A stored session with one badly shaped entry still loads, on each runtime:
 * the entry is skipped with a notice, every intact entry around it is
 * replayed, a stored setting nobody advertises is ignored, and the session
 * takes a new turn.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { agentText, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startAgent } from "../helpers/session-agent.ts";

const { methods } = acp;

const BAD_LINES: Record<string, string> = {
  "a message that is null": '{"type":"message","messageId":"m9","message":null}',
  "a message whose content is a string": '{"type":"message","messageId":"m10","message":{"role":"user","content":"just a string"}}',
  "a tool call whose locations are a string":
    '{"type":"tool_call","toolCallId":"c9","toolName":"read","title":"Read x","kind":"read","locations":"nope","input":{}}',
  "a config entry with a mode nobody advertised": '{"type":"config","mode":"bogus"}',
};

function sessionFile(home: string, sessionId: string): string {
  const root = join(home, "sessions");
  for (const dir of existsSync(root) ? readdirSync(root) : []) {
    const file = join(root, dir, `${sessionId}.jsonl`);
    if (existsSync(file)) return file;
  }
  throw new Error(`no file for ${sessionId}`);
}

describe.each(RUNTIMES)("damaged session entries on %s", (runtime) => {
  test("each bad entry is skipped with a notice; everything else loads and the session goes on", async () => {
    const sandbox = makeSandbox();
    sandbox.write("project/hello.txt", "hi there\n");
    const cases = Object.entries(BAD_LINES);
    try {
      const first = await startAgent(runtime, sandbox, {
        script: cases.flatMap(() => [{ toolCalls: [{ id: "r1", name: "read", input: { path: "hello.txt" } }] }, { text: "It says hi." }]),
      });
      const sessions: string[] = [];
      for (const _ of cases) {
        const { sessionId } = await first.newSession();
        expect((await first.prompt(sessionId, "What does hello.txt say?")).stopReason).toBe("end_turn");
        sessions.push(sessionId);
      }
      await first.stop();
      for (const [index, [, line]] of cases.entries()) {
        const file = sessionFile(sandbox.home, sessions[index]!);
        appendFileSync(file, `${line}\n`);
        appendFileSync(file, '{"type":"title","title":"After the damage"}\n');
      }

      const second = await startAgent(runtime, sandbox, { script: cases.map(() => ({ text: "Still here." })) });
      for (const [index, [what]] of cases.entries()) {
        const sessionId = sessions[index]!;
        const loaded = await second.client.agent.request(methods.agent.session.load, { sessionId, cwd: sandbox.project, mcpServers: [] });
        expect(loaded.modes?.currentModeId, what).toBe("ask");
        const updates = second.client.updates(sessionId);
        expect(updates.find((u) => u.sessionUpdate === "user_message_chunk"), what).toMatchObject({ content: { text: "What does hello.txt say?" } });
        expect(updates.find((u) => u.sessionUpdate === "tool_call"), what).toMatchObject({ toolCallId: "r1", status: "completed" });
        expect(agentText(updates), what).toContain("It says hi.");
        expect(updates.find((u) => u.sessionUpdate === "session_info_update"), what).toMatchObject({ title: "After the damage" });
        const notice = what.includes("config") ? "bogus" : "was damaged";
        await waitFor(() => agentText(second.client.updates(sessionId)).includes(notice), 5000, `a notice about ${what}`);
        expect((await second.prompt(sessionId, "and now?")).stopReason, what).toBe("end_turn");
        expect(agentText(second.client.updates(sessionId)), what).toContain("Still here.");
      }
      await second.stop();
    } finally {
      sandbox.cleanup();
    }
  }, 60_000);
});
