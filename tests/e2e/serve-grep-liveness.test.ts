/**
 * `agent serve` stays live while a session greps, on each runtime: a
 * catastrophic pattern answers at once, `/healthz` and other clients are
 * answered during a long search, and `session/cancel` over the WebSocket
 * stops it.
 */
import { describe, test } from "bun:test";
import { acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { finalStatus } from "../helpers/scenario.ts";
import { expectLiveThenCancelled, withTwoClients } from "../helpers/serve-liveness.ts";
import { SLOW_PATTERN, slowFile } from "../helpers/slow-grep.ts";

const { methods } = acp;

describe.each(RUNTIMES)("serve during a long grep on %s", (runtime) => {
  test("/healthz and a second client are answered while it runs; cancel stops it", async () => {
    const sandbox = makeSandbox();
    sandbox.write("project/big.txt", slowFile());
    sandbox.write("project/evil.txt", `${"a".repeat(34)}!\n`);
    const script = sandbox.write(
      "script.json",
      JSON.stringify([
        {
          toolCalls: [
            // A catastrophic pattern first: it must not hold up the process at all.
            { id: "g_evil", name: "grep", input: { pattern: "^(a+)+$", path: "evil.txt" } },
            { id: "g_slow", name: "grep", input: { pattern: SLOW_PATTERN, path: "big.txt", ignoreCase: true } },
          ],
        },
        { text: "after" },
      ]),
    );
    await withTwoClients(runtime, sandbox, script, async (server, clients, sessionId) => {
      const { alice } = clients;
      const turn = alice.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "search" }] });
      await waitFor(() => finalStatus(alice.updates(sessionId), "g_evil") === "completed", 20_000, "the catastrophic grep to answer");
      await waitFor(() => alice.updates(sessionId).some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "g_slow"), 20_000, "the long grep to start");
      await expectLiveThenCancelled(server, clients, { sessionId, toolCallId: "g_slow", turn });
    });
  }, 60_000);
});
