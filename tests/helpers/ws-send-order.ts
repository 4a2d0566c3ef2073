/**
 * Run on Node (Bun's `ws` is its own): a `ws` server whose clients negotiate
 * permessage-deflate; on each connection `ws.send` one message, then
 * `batchedSends` more. Prints the order the client received them in, as JSON.
 * With `close` as argument, no compression: `batchedSends` sends two
 * messages and closes in the same tick; prints what the client received
 * and the close code and reason.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { batchedSends } from "../../src/runtime/batched-sends.ts";

const first = `first ${"x".repeat(200_000)}`;
const server = createServer();
if (process.argv[2] === "close") closeAfterSends();
else sendsAfterCompressed();

function closeAfterSends(): void {
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on("connection", (ws) => {
    const batched = batchedSends(ws);
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
}
