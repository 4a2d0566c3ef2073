/**
 * A client joining a session while another client's turn streams: the
 * running turn's updates reach it only after the answer to its join (after
 * the replayed history for `session/load`), and from then on none is lost.
 * Several joins in a row, each over a raw socket that records every frame
 * in arrival order.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { initialize, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { bearer, connectWs, startServe, SUBPROTOCOL, TOKEN, createStoredSession } from "../helpers/serve-process.ts";
import { openTcpWebSocket } from "../helpers/tcp-websocket.ts";

const { methods } = acp;

/** The text of a frame when it is an `agent_message_chunk`. */
function chunkText(frame: any): string | undefined {
  const update = frame?.method === "session/update" ? frame.params?.update : undefined;
  return update?.sessionUpdate === "agent_message_chunk" ? String(update.content?.text ?? "") : undefined;
}

describe.each(RUNTIMES)("serve on %s: joining a session mid-turn", (runtime) => {
  test("load and resume get the running turn's updates only after their answer, and keep getting them", async () => {
    const sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), "{}");
    // A long first answer makes the history worth reading; the second streams for seconds, a delta every millisecond.
    const firstAnswer = "old answer ".repeat(20_000);
    const script = sandbox.write("script.json", JSON.stringify([{ text: firstAnswer }, { text: "live ".repeat(4000), delayMs: 1 }]));
    const server = await startServe(runtime, sandbox, { script });
    try {
      const id = await createStoredSession(server, sandbox.project);
      const url = `${server.wsUrl}/v1/session/${id}/apc`;
      const alice = connectWs(url, TOKEN);
      await initialize(alice);
      await alice.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      await alice.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "one" }] });
      const firstTurnUpdates = alice.updates(id).length;
      void alice.agent.request(methods.agent.session.prompt, { sessionId: id, prompt: [{ type: "text", text: "two" }] }).catch(() => undefined);
      await waitFor(() => alice.updates(id).slice(firstTurnUpdates).some((u) => u.sessionUpdate === "agent_message_chunk"), 10_000, "the second turn to stream");

      for (const method of ["session/load", "session/resume", "session/load", "session/resume", "session/load", "session/load"]) {
        const bob = await openTcpWebSocket(url, bearer(TOKEN), [SUBPROTOCOL]);
        bob.sendJson({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
        bob.sendJson({ jsonrpc: "2.0", id: 2, method, params: { sessionId: id, cwd: sandbox.project, mcpServers: [] } });
        await waitFor(() => bob.messages.some((m) => m.id === 2), 10_000, `the answer to ${method}`);
        const answeredAt = bob.messages.findIndex((m) => m.id === 2);
        expect(bob.messages[answeredAt].error).toBeUndefined();
        const before = bob.messages.slice(0, answeredAt).map(chunkText).filter((t): t is string => t !== undefined);
        // Before the answer: the replayed history for a load (the first turn's answer, whole), nothing for a resume.
        expect(before).toEqual(method === "session/load" ? [firstAnswer] : []);
        // After it, the running turn keeps arriving.
        const live = () => bob.messages.slice(answeredAt).filter((m) => (chunkText(m) ?? firstAnswer) !== firstAnswer);
        await waitFor(() => live().length > 0, 10_000, "live updates after the answer");
        bob.destroy();
      }
    } finally {
      await server.stop("SIGKILL");
      sandbox.cleanup();
    }
  }, 60_000);
});
