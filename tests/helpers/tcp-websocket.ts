/**
 * A bare WebSocket client on a TCP socket, for the one thing `ws` cannot do
 * under every test runtime: stop reading, so the server's outbound buffer for
 * this client fills up, and send frames no conforming client would (invalid
 * UTF-8, bad close codes). Enough of RFC 6455 for text and close frames.
 */
import { connect, type Socket } from "node:net";
import { randomBytes } from "node:crypto";

export interface TcpWebSocket {
  /** Messages and close frames received so far. */
  messages: any[];
  closeCode?: number;
  sendJson(message: unknown): void;
  /** Sends one masked frame with this opcode (1 text, 2 binary, 8 close, …) and payload, as is. */
  sendFrame(opcode: number, payload: Uint8Array): void;
  pause(): void;
  resume(): void;
  ended: Promise<void>;
  destroy(): void;
}

function frame(payload: Buffer, opcode = 1): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const first = 0x80 | opcode;
  const header = length < 126 ? Buffer.from([first, 0x80 | length]) : length < 65536 ? Buffer.from([first, 0x80 | 126, length >> 8, length & 255]) : (() => {
    const h = Buffer.alloc(10);
    h[0] = first;
    h[1] = 0x80 | 127;
    h.writeBigUInt64BE(BigInt(length), 2);
    return h;
  })();
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([header, mask, masked]);
}

export function openTcpWebSocket(url: string, headers: Record<string, string>, protocols: string[]): Promise<TcpWebSocket> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(target.port), target.hostname);
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    let endedResolve!: () => void;
    const client: TcpWebSocket = {
      messages: [],
      sendJson: (message) => void socket.write(frame(Buffer.from(JSON.stringify(message)))),
      sendFrame: (opcode, payload) => void socket.write(frame(Buffer.from(payload), opcode)),
      pause: () => void socket.pause(),
      resume: () => void socket.resume(),
      ended: new Promise((r) => (endedResolve = r)),
      destroy: () => socket.destroy(),
    };
    socket.on("connect", () => {
      const lines = [
        `GET ${target.pathname}${target.search} HTTP/1.1`,
        `Host: ${target.host}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
        `Sec-WebSocket-Protocol: ${protocols.join(", ")}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        "",
        "",
      ];
      socket.write(lines.join("\r\n"));
    });
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString();
        if (!head.startsWith("HTTP/1.1 101")) return reject(new Error(`upgrade refused: ${head.split("\r\n")[0]}`));
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        resolve(client);
      }
      for (;;) {
        if (buffer.length < 2) return;
        const opcode = buffer[0]! & 0x0f;
        let length = buffer[1]! & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          offset = 10;
        }
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        buffer = buffer.subarray(offset + length);
        if (opcode === 1) client.messages.push(JSON.parse(payload.toString()));
        else if (opcode === 8) {
          client.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
          // Answer the close handshake so the server can drop the connection at once.
          const mask = randomBytes(4);
          socket.end(Buffer.concat([Buffer.from([0x88, 0x80]), mask]));
        }
      }
    });
    socket.on("close", () => endedResolve());
    socket.on("error", (error) => (upgraded ? endedResolve() : reject(error)));
  });
}
