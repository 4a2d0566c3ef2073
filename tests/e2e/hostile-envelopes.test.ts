/**
 * Malformed JSON-RPC envelopes on every transport: each is answered (or, for
 * responses and notifications, ignored) and never wedges the connection; the
 * good request after it is answered. End of input right after one still
 * answers everything and exits 0.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeSandbox, RUNTIMES, spawnAgent, type Sandbox } from "../helpers/agent-process.ts";
import { driveMalformed, type TextChannel } from "../helpers/hostile-envelopes.ts";
import { contentLengthFrame, rawConnection } from "../helpers/raw-frames.ts";
import { bearer, rawSocket, startServe, SUBPROTOCOL, TOKEN, tryUpgrade } from "../helpers/serve-process.ts";
import { waitFor } from "../helpers/expect-error.ts";

type Framing = "ndjson" | "content-length";
const FRAMINGS: Framing[] = ["ndjson", "content-length"];
const encode = (framing: Framing, texts: string[]) =>
  framing === "ndjson" ? texts.map((t) => `${t}\n`).join("") : Buffer.concat(texts.map((t) => contentLengthFrame(t)));

describe.each(RUNTIMES)("malformed envelopes on %s", (runtime) => {
  let sandbox: Sandbox;
  beforeAll(() => (sandbox = makeSandbox()));
  afterAll(() => sandbox.cleanup());
  const start = () => spawnAgent(runtime, ["agent", "stdio", "--model", "faux/echo"], { env: { ACP_EDGE_HOME: sandbox.home } });

  for (const framing of FRAMINGS) {
    test(`stdio (${framing}): every malformed message is answered or ignored, and the next request is answered`, async () => {
      const proc = start();
      const conn = rawConnection(proc, framing);
      const channel: TextChannel = { send: (texts) => conn.send(encode(framing, texts)), next: () => conn.next() };
      await driveMalformed(channel);
      await conn.close();
      expect((await proc.exited).code).toBe(0);
    }, 60_000);

    test(`stdio (${framing}): end of input right after a malformed initialize answers everything and exits 0`, async () => {
      const proc = start();
      const conn = rawConnection(proc, framing);
      await conn.send(
        encode(framing, [
          '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}',
          '{"id":2,"method":"initialize","params":{"protocolVersion":1}}',
          '{"jsonrpc":"2.0","id":{"x":1},"method":"initialize","params":{"protocolVersion":1}}',
          '{"jsonrpc":"2.0","id":5,"method":"session/list","params":{}}',
        ]),
      );
      await conn.close();
      const exit = await proc.exited;
      expect({ exit, stderr: proc.stderr() }).toMatchObject({ exit: { code: 0, signal: null } });
      expect(conn.seen.map((m) => [m.id, m.error?.code ?? "ok"])).toEqual([
        [0, "ok"],
        [null, -32600],
        [null, -32600],
        [5, "ok"],
      ]);
    }, 60_000);
  }

  test("WebSocket /acp: every malformed message is answered or ignored, and the next request is answered", async () => {
    const server = await startServe(runtime, sandbox, { args: ["--model", "faux/echo"] });
    try {
      const upgrade = await tryUpgrade(`${server.wsUrl}/acp`, { protocols: [SUBPROTOCOL], headers: bearer(TOKEN) });
      if (!upgrade.ok) throw new Error(`upgrade refused: ${upgrade.status}`);
      const socket = rawSocket(upgrade.ws);
      let read = 0;
      const channel: TextChannel = {
        send: async (texts) => texts.forEach((text) => socket.send(text)),
        async next() {
          await waitFor(() => socket.received.length > read, 10_000, "a message from the agent");
          return socket.received[read++];
        },
      };
      await driveMalformed(channel);
      upgrade.ws.close();
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop("SIGKILL");
    }
  }, 60_000);
});
