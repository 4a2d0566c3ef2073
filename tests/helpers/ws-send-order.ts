/**
 * Run on Node (Bun's `ws` is its own): a `ws` server whose clients negotiate
 * permessage-deflate; on each connection `ws.send` one message, then
 * `batchedSends` more. Prints the order the client received them in, as JSON.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { batchedSends } from "../../src/runtime/batched-sends.ts";

const first = `first ${"x".repeat(200_000)}`;
const server = createServer();
const wss = new WebSocketServer({ server, perMessageDeflate: { threshold: 0 } });
wss.on("connection", (ws) => {
  ws.send(first);
  const batched = batchedSends(ws);
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
