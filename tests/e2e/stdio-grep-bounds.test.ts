/**
 * The grep tool against hostile patterns through the whole agent, on each
 * runtime: a catastrophic regex answers at once, and a long search neither
 * holds up other requests nor outlasts `session/cancel`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { finalStatus, startScenario, toolText, type Scenario } from "../helpers/scenario.ts";
import { SLOW_PATTERN, slowFile } from "../helpers/slow-grep.ts";

describe.each(RUNTIMES)("grep bounds on %s", (runtime) => {
  let s: Scenario | undefined;
  afterEach(() => s?.close());

  test("a catastrophic regex answers at once, and a backreference is refused with the reason", async () => {
    s = await startScenario(runtime, {
      args: ["--approval-mode", "read-only"],
      files: { "project/evil.txt": `${"a".repeat(34)}!\n`.repeat(20) },
      script: [
        {
          toolCalls: [
            { id: "g_evil", name: "grep", input: { pattern: "^(a+)+$", path: "evil.txt" } },
            { id: "g_backref", name: "grep", input: { pattern: "(a)\\1", path: "evil.txt" } },
          ],
        },
        { text: "searched" },
      ],
    });
    expect((await s.prompt("search")).stopReason).toBe("end_turn");
    expect(finalStatus(s.updates(), "g_evil")).toBe("completed");
    expect(toolText(s.updates(), "g_evil")).toContain("No matches found");
    expect(finalStatus(s.updates(), "g_backref")).toBe("failed");
    expect(toolText(s.updates(), "g_backref")).toContain("backreferences");
  }, 60_000);

  test("a long search leaves other requests answered and stops on session/cancel", async () => {
    s = await startScenario(runtime, {
      args: ["--approval-mode", "read-only"],
      files: { "project/big.txt": slowFile(100, 19_000) },
      script: [
        { toolCalls: [{ id: "g_slow", name: "grep", input: { pattern: SLOW_PATTERN, path: "big.txt", ignoreCase: true } }] },
        { text: "still here" },
      ],
    });
    const scenario = s;
    const turn = scenario.prompt("search slowly");
    await waitFor(() => scenario.updates().some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "g_slow"), 20_000, "the grep to start");
    // The process keeps serving while the search runs.
    const listed = await scenario.client.agent.request(acp.methods.agent.session.list, {});
    expect(listed.sessions.map((x) => x.sessionId)).toContain(scenario.sessionId);
    await scenario.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: scenario.sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(finalStatus(scenario.updates(), "g_slow")).not.toBe("completed");
    // And the session takes the next turn.
    expect((await scenario.prompt("again")).stopReason).toBe("end_turn");
  }, 60_000);
});
