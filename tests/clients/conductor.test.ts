/**
 * The client matrix, a proxy chain: `@thinkwell/conductor` between the SDK's
 * client and the agent, set up as its README says (`new Conductor` with
 * `fromCommands([...])`, which spawns the agent over stdio, and a
 * `ChannelConnector` for the client). The conductor rewrites request ids and
 * routes every message through its queue; one tool turn runs end to end on
 * each runtime.
 */
import { describe, expect, test } from "bun:test";
import { ChannelConnector, Conductor, fromCommands, type JsonRpcMessage } from "@thinkwell/conductor";
import { acp, connectStream, initialize } from "../helpers/acp-client.ts";
import { agentCommand, RUNTIMES } from "../helpers/agent-process.ts";
import { expectToolTurnSeen, toolTurn } from "./tool-turn.ts";

const { methods } = acp;

/** The client's end of the conductor's channel as the SDK's message stream. */
function channelStream(end: { send(message: JsonRpcMessage): void; messages: AsyncIterable<JsonRpcMessage> }): acp.Stream {
  const iterator = end.messages[Symbol.asyncIterator]();
  return {
    readable: new ReadableStream<acp.AnyMessage>({
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value as acp.AnyMessage);
      },
    }),
    writable: new WritableStream<acp.AnyMessage>({ write: (message) => end.send(message as JsonRpcMessage) }),
  };
}

describe.each(RUNTIMES)("the SDK's client through @thinkwell/conductor on %s", (runtime) => {
  test("a tool turn through the conductor, its updates all before the prompt's answer", async () => {
    const turn = await toolTurn();
    const { command, args } = agentCommand(runtime, ["agent", "stdio"]);
    const conductor = new Conductor({ instantiator: fromCommands([{ command, args, env: turn.env }]) });
    const connector = new ChannelConnector();
    const running = conductor.connect(connector);
    const client = connectStream(channelStream(connector.getOtherEnd()!));
    try {
      expect((await initialize(client)).agentInfo?.name).toBe("acp-edge");
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: turn.sandbox.project, mcpServers: [] });
      const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "count the apples" }] });
      expect(stopReason).toBe("end_turn");
      const answeredAt = client.received.findIndex((m) => (m.result as { stopReason?: string } | undefined)?.stopReason === "end_turn");
      const lastUpdateAt = client.received.findLastIndex((m) => m.method === "session/update");
      expect(lastUpdateAt).toBeLessThan(answeredAt);
      expectToolTurnSeen(client.updates(sessionId), turn);
    } finally {
      client.close();
      await conductor.shutdown();
      await running.catch(() => undefined);
      await turn.close();
    }
  }, 60_000);
});
