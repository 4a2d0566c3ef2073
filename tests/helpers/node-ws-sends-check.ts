/**
 * Run on Node (Bun's `ws` is its own): a `ws` server whose connections send
 * through `nodeWsSends` (corking the upgrade request's socket per tick, as
 * `agent serve` does), checked from a real client; prints one JSON line.
 * Modes (first argument):
 * - `compressed`: the client negotiates permessage-deflate; the server
 *   `ws.send`s a large message, then two more through `nodeWsSends`.
 * - `close`: two messages and a close in one tick.
 * - `peer-close`: the client writes a request and its close frame in one TCP
 *   write; the server answers the request as it arrives.
 * - `after-close`: a message, a close, then a message after it; the raw
 *   bytes that reached the client, as frames.
 * - `mixed`: small and 20 KiB messages in one tick, their order as received.
 * - `texts`: every payload-length boundary, multi-byte text, and a seeded
 *   run of random texts; which arrived changed or not as text.
 * - `fan-out`: one 512 KiB update sent to 16 clients in a row, as a fan-out
 *   does; what each received.
 */
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { nodeWsSends } from "../../src/runtime/websocket/node-ws-sends.ts";

const server = createServer();
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
const url = () => `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const done = (wss: WebSocketServer) => {
  wss.close();
  server.close();
};

const modes: Record<string, () => void> = {
  compressed() {
    const wss = new WebSocketServer({ server, perMessageDeflate: { threshold: 0 } });
    wss.on("connection", (ws, request) => {
      ws.send(`first ${"x".repeat(200_000)}`);
      const sends = nodeWsSends(ws, request.socket);
      sends.send("second");
      sends.send("third");
    });
    listen(() => {
      const client = new WebSocket(url());
      const received: string[] = [];
      client.on("message", (data) => {
        received.push(String(data).slice(0, 6).trim());
        if (received.length === 3) {
          print({ extensions: client.extensions, received });
          client.close();
          done(wss);
        }
      });
    });
  },

  close() {
    const wss = new WebSocketServer({ server, perMessageDeflate: false });
    wss.on("connection", (ws, request) => {
      const sends = nodeWsSends(ws, request.socket);
      sends.send("one");
      sends.send("two");
      sends.close(1000, "done");
    });
    listen(() => {
      const client = new WebSocket(url());
      const received: string[] = [];
      client.on("message", (data) => received.push(String(data)));
      client.on("close", (code, reason) => {
        print({ received, code, reason: String(reason) });
        done(wss);
      });
    });
  },

  "peer-close"() {
    const wss = new WebSocketServer({ server, perMessageDeflate: false });
    wss.on("connection", (ws, request) => {
      const sends = nodeWsSends(ws, request.socket);
      ws.on("message", (data) => sends.send(`answer to ${String(data)}`));
    });
    listen(() => {
      const client = new WebSocket(url());
      const received: string[] = [];
      let socket: Duplex | undefined;
      // The connection the handshake's response came on, which the client then speaks WebSocket over.
      client.on("upgrade", (response) => (socket = response.socket));
      client.on("message", (data) => received.push(String(data)));
      client.on("open", () => {
        // The request and the close frame leave in one write, so the server reads both at once.
        if (!socket) throw new Error("no upgrade socket");
        socket.cork();
        client.send("request");
        client.close(1000, "bye");
        socket.uncork();
      });
      client.on("close", (code) => {
        print({ received, code });
        done(wss);
      });
    });
  },

  "after-close"() {
    const wss = new WebSocketServer({ server, perMessageDeflate: false });
    let threw = false;
    wss.on("connection", (ws, request) => {
      const sends = nodeWsSends(ws, request.socket);
      sends.send("before");
      sends.close(1000, "done");
      try {
        sends.send("after");
      } catch {
        threw = true;
      }
    });
    listen(() => {
      // A raw client, so that every byte after the handshake response is seen.
      const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
      const chunks: Buffer[] = [];
      socket.write(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      );
      socket.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        const all = Buffer.concat(chunks);
        const body = all.subarray(all.indexOf("\r\n\r\n") + 4);
        // Once the close frame is in, the connection ends from this side (no close frame of its own).
        if (frames(body).some((f) => "close" in f)) socket.end();
      });
      socket.on("close", () => {
        const all = Buffer.concat(chunks);
        print({ frames: frames(all.subarray(all.indexOf("\r\n\r\n") + 4)), threw });
        done(wss);
      });
    });
  },

  mixed() {
    const large = `large ${"y".repeat(20 * 1024)}`;
    const wss = new WebSocketServer({ server, perMessageDeflate: false });
    wss.on("connection", (ws, request) => {
      const sends = nodeWsSends(ws, request.socket);
      for (const text of ["small 1", large, "small 2", "small 3", large, "small 4"]) sends.send(text);
    });
    listen(() => {
      const client = new WebSocket(url());
      const received: string[] = [];
      client.on("message", (data) => {
        const text = String(data);
        received.push(text === large ? "large" : text);
        if (received.length === 6) {
          print({ received });
          client.close();
          done(wss);
        }
      });
    });
  },

  texts() {
    const texts = sampleTexts();
    const wss = new WebSocketServer({ server, perMessageDeflate: false });
    wss.on("connection", (ws, request) => {
      const sends = nodeWsSends(ws, request.socket);
      for (const text of texts) sends.send(text);
    });
    listen(() => {
      const client = new WebSocket(url());
      const changed: number[] = [];
      let binary = 0;
      let received = 0;
      client.on("message", (data, isBinary) => {
        if (isBinary) binary++;
        if (String(data) !== texts[received]) changed.push(received);
        received++;
        if (received === texts.length) {
          print({ sent: texts.length, received, binary, changed });
          client.close();
          done(wss);
        }
      });
    });
  },

  "fan-out"() {
    const update = `{"jsonrpc":"2.0","method":"session/update","params":{"text":"${"naïve ✓ ".repeat(64 * 1024)}"}}`;
    const clients = 16;
    const wss = new WebSocketServer({ server, perMessageDeflate: false });
    const sends: ReturnType<typeof nodeWsSends>[] = [];
    wss.on("connection", (ws, request) => {
      sends.push(nodeWsSends(ws, request.socket));
      // As a session's fan-out does: the same string to every client in turn.
      if (sends.length === clients) for (const client of sends) client.send(update);
    });
    listen(() => {
      const results: boolean[] = [];
      for (let i = 0; i < clients; i++) {
        const client = new WebSocket(url());
        client.on("message", (data, isBinary) => {
          results.push(!isBinary && String(data) === update);
          client.close();
          if (results.length === clients) {
            print({ clients, intact: results.filter(Boolean).length });
            done(wss);
          }
        });
      }
    });
  },
};

function listen(then: () => void): void {
  server.listen(0, "127.0.0.1", then);
}

/** Boundaries of the 7-, 16- and 64-bit payload lengths, UTF-8 lengths, and a seeded run. */
function sampleTexts(): string[] {
  const texts = [1, 125, 126, 127, 65_535, 65_536, 70_000, 300_000].map((size) => "x".repeat(size));
  texts.push("é".repeat(62), "é".repeat(63), "é".repeat(32_768), "😀".repeat(16_384), '{"text":"naïve ✓ 日本"}');
  let seed = 20261201;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const alphabet = ["a", "{", '"', "\\", "é", "日", "😀", "\n", "\u0000"];
  for (let i = 0; i < 200; i += 1) {
    const length = 1 + (next() % (i % 10 === 0 ? 70_000 : 300));
    let text = "";
    for (let j = 0; j < length; j += 1) text += alphabet[next() % alphabet.length];
    texts.push(text);
  }
  return texts;
}

/** Server frames (never masked) in `bytes`, by opcode: text payloads as text, a close as its code. */
function frames(bytes: Buffer): Array<{ text: string } | { close: number } | { opcode: number }> {
  const out: Array<{ text: string } | { close: number } | { opcode: number }> = [];
  for (let at = 0; at + 2 <= bytes.length; ) {
    const opcode = bytes[at]! & 0x0f;
    let length = bytes[at + 1]! & 0x7f;
    let offset = at + 2;
    if (offset + (length === 126 ? 2 : length === 127 ? 8 : 0) > bytes.length) break;
    if (length === 126) {
      length = bytes.readUInt16BE(offset);
      offset += 2;
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(offset));
      offset += 8;
    }
    if (offset + length > bytes.length) break; // not all here yet
    const payload = bytes.subarray(offset, offset + length);
    out.push(opcode === 1 ? { text: payload.toString("utf8") } : opcode === 8 ? { close: payload.readUInt16BE(0) } : { opcode });
    at = offset + length;
  }
  return out;
}

const mode = modes[process.argv[2] ?? ""];
if (!mode) throw new Error(`unknown mode ${process.argv[2]}; one of ${Object.keys(modes).join(", ")}`);
mode();
