/**
 * `textFrame`: the WebSocket text frame the Node server writes to every
 * client of a session. Each frame is written raw to a real socket after a
 * real handshake and read by the runtime's own WebSocket client, at each
 * payload-length boundary, with multi-byte characters, and in a seeded run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { textFrame } from "../../src/runtime/batched-sends.ts";

let server: Server;
let url: string;
/** Texts the next connection's server side writes, one frame each. */
let toSend: string[] = [];

beforeAll(async () => {
  server = createServer();
  server.on("upgrade", (request, socket: Socket) => {
    const accept = createHash("sha1").update(`${request.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    for (const text of toSend) socket.write(textFrame(text));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** What a client receives when the server writes one frame per text. */
function receive(texts: string[]): Promise<unknown[]> {
  toSend = texts;
  return new Promise((resolve, reject) => {
    const received: unknown[] = [];
    const ws = new WebSocket(url);
    ws.onmessage = (event) => {
      received.push(event.data);
      if (received.length === texts.length) {
        ws.close();
        resolve(received);
      }
    };
    ws.onerror = () => reject(new Error("the client saw a broken frame"));
    ws.onclose = (event) => received.length < texts.length && reject(new Error(`closed (${event.code}) after ${received.length} messages`));
  });
}

describe("textFrame", () => {
  test("each payload-length boundary (7-, 16- and 64-bit lengths) arrives as one text message", async () => {
    const texts = [1, 125, 126, 127, 65_535, 65_536, 70_000, 300_000].map((size) => "x".repeat(size));
    expect(await receive(texts)).toEqual(texts);
  });

  test("lengths count UTF-8 bytes, not UTF-16 units", async () => {
    const texts = ["é".repeat(62), "é".repeat(63), "é".repeat(32_768), "😀".repeat(16_384), '{"text":"naïve ✓ 日本"}'];
    expect(await receive(texts)).toEqual(texts);
  });

  test("a seeded run of random texts arrives unchanged", async () => {
    let seed = 20261201;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = ["a", "{", '"', "\\", "é", "日", "😀", "\n", "\u0000"];
    const texts: string[] = [];
    for (let i = 0; i < 200; i += 1) {
      const length = 1 + (next() % (i % 10 === 0 ? 70_000 : 300));
      let text = "";
      for (let j = 0; j < length; j += 1) text += alphabet[next() % alphabet.length];
      texts.push(text);
    }
    expect(await receive(texts)).toEqual(texts);
  });
});

describe("batchedSends next to ws's own sends", () => {
  /** Bundles tests/helpers/ws-send-order.ts for Node and runs it with `mode`; its JSON line. */
  async function runOnNode(mode: string[]): Promise<unknown> {
    const { build } = await import("esbuild");
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { spawnSync } = await import("node:child_process");
    const { ROOT } = await import("../helpers/agent-process.ts");
    const dir = mkdtempSync(join(tmpdir(), "ws-send-order-"));
    try {
      const script = join(dir, "check.mjs");
      await build({
        entryPoints: [join(ROOT, "tests", "helpers", "ws-send-order.ts")],
        bundle: true,
        platform: "node",
        format: "esm",
        outfile: script,
        external: ["bufferutil", "utf-8-validate"],
        banner: { js: 'import{createRequire as __cr}from"node:module";const require=__cr(import.meta.url);' },
        logLevel: "error",
      });
      const run = spawnSync("node", [script, ...mode], { encoding: "utf8", timeout: 30_000 });
      expect(run.stderr).toBe("");
      return JSON.parse(run.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("a message ws is still compressing goes out before the ones sent after it", async () => {
    expect(await runOnNode([])).toEqual({ extensions: "permessage-deflate", received: ["first", "second", "third"] });
  });

  test("a close goes out after the messages queued before it in the same tick", async () => {
    expect(await runOnNode(["close"])).toEqual({ received: ["one", "two"], code: 1000, reason: "done" });
  });

  test("an answer queued in the tick the client's close frame arrives still reaches the client", async () => {
    expect(await runOnNode(["peer-close"])).toEqual({ received: ["answer to request"], code: 1000 });
  });

  test("large messages keep their place among the small ones sent around them", async () => {
    expect(await runOnNode(["mixed"])).toEqual({ received: ["small 1", "large", "small 2", "small 3", "large", "small 4"] });
  });
});
