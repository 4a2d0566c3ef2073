/**
 * Run on Node (Bun's `ws` is its own): a `ws` server whose clients negotiate
 * permessage-deflate; on each connection `ws.send` one message, then
 * `batchedSends` more. Prints the order the client received them in, as JSON.
 * With `close` as argument, no compression: `batchedSends` sends two
 * messages and closes in the same tick; prints what the client received
 * and the close code and reason. With `peer-close`: the client writes a
 * request and its close frame in one TCP write, the server answers the
 * request through `batchedSends` (so `ws` starts closing before the tick's
 * frames reach the network); prints what the client received. With `mixed`: small,
 * large (20 KiB), small messages in one tick; prints their order as received.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { batchedSends } from "../../src/runtime/batched-sends.ts";

const first = `first ${"x".repeat(200_000)}`;
const server = createServer();
const mode = process.argv[2];
if (mode === "close") closeAfterSends();
else if (mode === "peer-close") answerBeforePeerClose();
else if (mode === "mixed") mixedSizes();
else sendsAfterCompressed();

function answerBeforePeerClose(): void {
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on("connection", (ws, request) => {
    const batched = batchedSends(ws, request.socket);
    ws.on("message", (data) => batched.send(`answer to ${String(data)}`));
  });
  server.listen(0, "127.0.0.1", () => {
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const received: string[] = [];
    let socket: import("node:stream").Duplex | undefined;
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
      process.stdout.write(`${JSON.stringify({ received, code })}\n`);
      wss.close();
      server.close();
    });
  });
}

function mixedSizes(): void {
  const large = `large ${"y".repeat(20 * 1024)}`;
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on("connection", (ws, request) => {
    const batched = batchedSends(ws, request.socket);
    for (const text of ["small 1", large, "small 2", "small 3", large, "small 4"]) batched.send(text);
  });
  server.listen(0, "127.0.0.1", () => {
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const received: string[] = [];
    client.on("message", (data) => {
      const text = String(data);
      received.push(text === large ? "large" : text);
      if (received.length === 6) {
        process.stdout.write(`${JSON.stringify({ received })}\n`);
        client.close();
        wss.close();
        server.close();
      }
    });
  });
}

function closeAfterSends(): void {
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on("connection", (ws, request) => {
    const batched = batchedSends(ws, request.socket);
    batched.send("one");
    batched.send("two");
    batched.close(1000, "done");
  });
  server.listen(0, "127.0.0.1", () => {
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const received: string[] = [];
    client.on("message", (data) => received.push(String(data)));
    client.on("close", (code, reason) => {
      process.stdout.write(`${JSON.stringify({ received, code, reason: String(reason) })}\n`);
      wss.close();
      server.close();
    });
  });
}

function sendsAfterCompressed(): void {
  const wss = new WebSocketServer({ server, perMessageDeflate: { threshold: 0 } });
  wss.on("connection", (ws, request) => {
    ws.send(first);
    const batched = batchedSends(ws, request.socket);
    batched.send("second");
    batched.send("third");
  });
  server.listen(0, "127.0.0.1", () => {
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const received: string[] = [];
    client.on("message", (data) => {
      received.push(String(data).slice(0, 6).trim());
      if (received.length === 3) {
        process.stdout.write(`${JSON.stringify({ extensions: client.extensions, received })}\n`);
        client.close();
        wss.close();
        server.close();
      }
    });
  });
}
