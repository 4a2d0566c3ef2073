/**
 * `agent serve` stays live while a session greps, on each runtime: a
 * catastrophic pattern answers at once, `/healthz` and other clients are
 * answered during a long search, and `session/cancel` over the WebSocket
 * stops it.
 */
import { describe, expect, test } from "bun:test";
import { acp, initialize } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { finalStatus } from "../helpers/scenario.ts";
import { expectLiveThenCancelled } from "../helpers/serve-liveness.ts";
import { connectWs, startServe, TOKEN } from "../helpers/serve-process.ts";
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
    const server = await startServe(runtime, sandbox, { script, args: ["--model", "faux/script", "--approval-mode", "read-only"] });
    const alice = connectWs(`${server.wsUrl}/acp`, TOKEN);
    const bob = connectWs(`${server.wsUrl}/acp`, TOKEN);
    try {
      await initialize(alice);
      const { sessionId } = await alice.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      const turn = alice.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "search" }] });
      await waitFor(() => finalStatus(alice.updates(sessionId), "g_evil") === "completed", 20_000, "the catastrophic grep to answer");
      await waitFor(() => alice.updates(sessionId).some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "g_slow"), 20_000, "the long grep to start");
      await expectLiveThenCancelled(server, { alice, bob }, { sessionId, toolCallId: "g_slow", turn });
    } finally {
      alice.close();
      bob.close();
      await server.stop("SIGKILL");
      sandbox.cleanup();
    }
  }, 60_000);
});
