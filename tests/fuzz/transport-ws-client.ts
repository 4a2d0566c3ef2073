/**
 * A WebSocket client on a bare TCP socket that can write any bytes (valid
 * frames or not) and reads the server's frames strictly: unmasked, final,
 * text frames holding UTF-8 JSON-RPC, pings answered with pongs.
 */
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { outgoingProblem } from "./transport-oracle.ts";
import { preview } from "./transport-output-reader.ts";

const fatal = new TextDecoder("utf-8", { fatal: true });

/** What the client saw when the upgrade was refused. */
export class UpgradeRefused extends Error {
  constructor(readonly status: number, readonly head: string) {
    super(`upgrade refused: ${head.split("\r\n")[0]}`);
  }
}

/** Callbacks of a raw client. */
export interface RawWsHandlers {
  onMessage(message: Record<string, unknown>): void;
  onProblem(problem: string): void;
  onClosed(code: number | undefined): void;
}

/** One open raw WebSocket connection. */
export class RawWebSocket {
  #buffer = Buffer.alloc(0);
  closed = false;
  closeCode: number | undefined;

  private constructor(
    readonly socket: Socket,
    readonly handlers: RawWsHandlers,
  ) {}

  /** Connects and upgrades; rejects with {@link UpgradeRefused} or a socket error. */
  static open(url: URL, token: string, handlers: RawWsHandlers): Promise<RawWebSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      socket.setNoDelay(true);
      let upgraded = false;
      let head = Buffer.alloc(0);
      const client = new RawWebSocket(socket, handlers);
      socket.on("connect", () => {
        socket.write(
          [
            `GET ${url.pathname}${url.search} HTTP/1.1`,
            `Host: ${url.host}`,
            "Upgrade: websocket",
            "Connection: Upgrade",
            `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
            "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Protocol: agent-client-protocol.v1",
            `Authorization: Bearer ${token}`,
            "",
            "",
          ].join("\r\n"),
        );
      });
      socket.on("data", (chunk: Buffer) => {
        if (upgraded) return client.#data(chunk);
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        const text = head.subarray(0, end).toString();
        if (!text.startsWith("HTTP/1.1 101")) {
          socket.destroy();
          return reject(new UpgradeRefused(Number(text.split(" ")[1]), text + "\r\n\r\n" + head.subarray(end + 4).toString()));
        }
        if (!/^sec-websocket-protocol: agent-client-protocol\.v1$/im.test(text)) handlers.onProblem(`the upgrade selected another subprotocol: ${JSON.stringify(text)}`);
        upgraded = true;
        resolve(client);
        const rest = head.subarray(end + 4);
        if (rest.length) client.#data(rest);
      });
      socket.on("error", (error) => {
        if (!upgraded) reject(error);
      });
      socket.on("close", () => {
        if (!upgraded) reject(new Error("the connection closed during the upgrade"));
        client.#closed();
      });
    });
  }

  /** Writes raw bytes; resolves once they are handed to the kernel. */
  write(bytes: Uint8Array): Promise<void> {
    if (this.closed || this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.write(bytes, () => resolve());
    });
  }

  /** Ends our side after everything written (FIN), and drops the socket soon after. */
  end(): void {
    if (this.socket.destroyed) return;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 2000).unref?.();
  }

  #closed(): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers.onClosed(this.closeCode);
  }

  #data(chunk: Buffer): void {
    this.#buffer = this.#buffer.length ? Buffer.concat([this.#buffer, chunk]) : chunk;
    for (;;) {
      const b = this.#buffer;
      if (b.length < 2) return;
      const fin = (b[0]! & 0x80) !== 0;
      const rsv = b[0]! & 0x70;
      const opcode = b[0]! & 0x0f;
      const masked = (b[1]! & 0x80) !== 0;
      let length = b[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (b.length < 4) return;
        length = b.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (b.length < 10) return;
        length = Number(b.readBigUInt64BE(2));
        offset = 10;
      }
      if (b.length < offset + length) return;
      const payload = b.subarray(offset, offset + length);
      this.#buffer = b.subarray(offset + length);
      if (masked || rsv || !fin) this.handlers.onProblem(`the server sent a ${masked ? "masked" : rsv ? "RSV-flagged" : "fragmented"} frame`);
      if (opcode === 1) this.#text(payload);
      else if (opcode === 8) {
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.end();
      } else if (opcode === 9) {
        const mask = randomBytes(4);
        void this.write(Buffer.concat([Buffer.from([0x8a, 0x80 | payload.length]), mask, Buffer.from(payload.map((x, i) => x ^ mask[i & 3]!))]));
      } else if (opcode !== 10) this.handlers.onProblem(`the server sent a frame with opcode ${opcode}`);
    }
  }

  #text(payload: Uint8Array): void {
    let message: unknown;
    try {
      message = JSON.parse(fatal.decode(payload));
    } catch {
      return this.handlers.onProblem(`the server sent a text frame that is not UTF-8 JSON: ${preview(payload)}`);
    }
    const problem = outgoingProblem(message);
    if (problem) return this.handlers.onProblem(`the server sent a message that is not JSON-RPC 2.0 (${problem}): ${preview(payload)}`);
    this.handlers.onMessage(message as Record<string, unknown>);
  }
}
