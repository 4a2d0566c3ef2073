/**
 * `agent stdio` terminated (SIGTERM) while the model is still answering:
 * the running prompt is answered `cancelled` before the process exits 0,
 * with session files and without them (`--no-session`, where nothing slows
 * the exit down).
 */
import { describe, expect, test } from "bun:test";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { startScenario } from "../helpers/scenario.ts";

describe.each(RUNTIMES)("agent stdio terminated on %s", (runtime) => {
  for (const args of [["--no-session"], []]) {
    test(`a prompt the model is still answering is answered cancelled before exit (${args.join(" ") || "session files"})`, async () => {
      // A few rounds: the answer racing the exit is what this checks.
      for (let round = 0; round < 3; round++) {
        const s = await startScenario(runtime, { script: [{ text: "slow words ".repeat(200), delayMs: 50 }], args });
        try {
          let answer: unknown = "no answer";
          const prompt = s.prompt("go").then((result) => (answer = result), (error: unknown) => (answer = error));
          await waitFor(() => s.updates().some((u) => u.sessionUpdate === "agent_message_chunk"), 10_000, "the answer to start streaming");
          s.proc.child.kill("SIGTERM");
          expect((await s.proc.exited).code).toBe(0);
          // The client settles the request once the agent's output ends: with the answer, or with "connection closed".
          await prompt;
          // The answer also names the user message it recorded (`userMessageId`, the id a rewind can name).
          expect(answer).toEqual({ stopReason: "cancelled", userMessageId: expect.stringMatching(/^msg_/) });
        } finally {
          s.close();
        }
      }
    }, 60_000);
  }
});
