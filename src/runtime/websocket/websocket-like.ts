/**
 * The little the transport needs from a server-side WebSocket. Each runtime's
 * upgrader (ws on Node, Bun's ServerWebSocket, Deno's WebSocket) provides one.
 * @module
 */
export interface WebSocketLike {
  /** Queues a text frame. */
  send(text: string): void;
  /** Bytes queued but not yet handed to the network. */
  bufferedAmount(): number;
  close(code: number, reason: string): void;
  ping(): void;
  onMessage(listener: (data: string | Uint8Array, isBinary: boolean) => void): void;
  onClose(listener: (code: number, reason: string) => void): void;
  onPong(listener: () => void): void;
  /** The runtime pings by itself and closes a peer that stops answering; no pings of our own then. */
  keepsAlive?: boolean;
}

/** Close codes used by acp-edge (RFC 6455 §7.4.1). */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  unsupportedData: 1003,
  policyViolation: 1008,
  tooBig: 1009,
  internalError: 1011,
} as const;
