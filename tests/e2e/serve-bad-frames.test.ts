/**
 * Frames no conforming client sends: invalid UTF-8 in a text frame, a close
 * frame with a reserved code, a message over the size limit. Each closes only
 * the socket that sent it, with the code RFC 6455 gives (1007, 1002, 1009);
 * the server, its health check and every other client carry on.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentText, initialize, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { bearer, connectWs, startServe, SUBPROTOCOL, TOKEN } from "../helpers/serve-process.ts";
import { openTcpWebSocket } from "../helpers/tcp-websocket.ts";

const { methods } = acp;
const LIMIT = 64 * 1024;
const TEXT = 0x1;
const CLOSE = 0x8;

const closeFrame = (code: number) => new Uint8Array([code >> 8, code & 0xff]);

const BAD_FRAMES: Array<{ name: string; opcode: number; payload: Uint8Array; closeCode: number }> = [
  { name: "a text frame with invalid UTF-8", opcode: TEXT, payload: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), closeCode: 1007 },
  { name: "a close frame with code 999", opcode: CLOSE, payload: closeFrame(999), closeCode: 1002 },
  { name: "a close frame with a one-byte body", opcode: CLOSE, payload: new Uint8Array([3]), closeCode: 1002 },
  { name: "a frame with a reserved opcode", opcode: 0x3, payload: new Uint8Array([1]), closeCode: 1002 },
  { name: "a ping longer than 125 bytes", opcode: 0x9, payload: new Uint8Array(126), closeCode: 1002 },
  { name: "a continuation frame with nothing to continue", opcode: 0x0, payload: new TextEncoder().encode("{}"), closeCode: 1002 },
  { name: "a message over the size limit", opcode: TEXT, payload: new TextEncoder().encode(`"${"x".repeat(LIMIT)}"`), closeCode: 1009 },
];

describe.each(RUNTIMES)("bad WebSocket frames on %s", (runtime) => {
  test("each bad frame closes only its socket, with its code; another client's turns and /healthz go on", async () => {
    const sandbox = makeSandbox();
    writeFileSync(join(sandbox.home, "settings.json"), JSON.stringify({ serve: { maxMessageBytes: LIMIT } }));
    const script = sandbox.write("script.json", JSON.stringify(BAD_FRAMES.map((_, i) => ({ text: `turn ${i}` }))));
    const server = await startServe(runtime, sandbox, { script });
    try {
      const client = connectWs(`${server.wsUrl}/acp`, TOKEN);
      await initialize(client);
      const { sessionId } = await client.agent.request(methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });

      for (const [i, bad] of BAD_FRAMES.entries()) {
        const offender = await openTcpWebSocket(`${server.wsUrl}/acp`, bearer(TOKEN), [SUBPROTOCOL]);
        offender.sendJson({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
        offender.sendFrame(bad.opcode, bad.payload);
        await offender.ended;
        expect({ frame: bad.name, closeCode: offender.closeCode }).toEqual({ frame: bad.name, closeCode: bad.closeCode });

        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        const { stopReason } = await client.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "go on" }] });
        expect(stopReason).toBe("end_turn");
        expect(agentText(client.updates(sessionId))).toContain(`turn ${i}`);
      }
      client.close();
      expect(server.proc.child.exitCode).toBeNull();
    } finally {
      await server.stop("SIGKILL");
      sandbox.cleanup();
    }
  }, 60_000);
});
