/**
 * A deliberately independent reader and writer of raw stdio frames, so the
 * agent's own framing code is not used to check itself.
 */
import type { AgentProcess } from "./agent-process.ts";

export function contentLengthFrame(json: string): Uint8Array {
  const body = new TextEncoder().encode(json);
  const head = new TextEncoder().encode(`Content-Length: ${body.length}\r\n\r\n`);
  const frame = new Uint8Array(head.length + body.length);
  frame.set(head);
  frame.set(body, head.length);
  return frame;
}

export interface RawConnection {
  send(bytes: Uint8Array | string): Promise<void>;
  /** Next message from the agent (parsed), failing after `timeoutMs`. */
  next(timeoutMs?: number): Promise<any>;
  /** Next message with this id, skipping (and keeping) others. */
  response(id: number | string, timeoutMs?: number): Promise<any>;
  /** Every message received so far. */
  seen: any[];
  /** Raw text of everything the agent wrote. */
  rawText(): string;
  close(): Promise<void>;
}

/** Reads the agent's stdout as Content-Length frames (`framing: "content-length"`) or NDJSON lines. */
export function rawConnection(proc: AgentProcess, framing: "content-length" | "ndjson"): RawConnection {
  const writer = proc.stdin.getWriter();
  const reader = proc.stdout.getReader();
  let buffer = new Uint8Array(0);
  const queue: any[] = [];
  const seen: any[] = [];
  let raw = "";
  let waiting: (() => void) | undefined;

  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      raw += new TextDecoder().decode(value);
      const merged = new Uint8Array(buffer.length + value.length);
      merged.set(buffer);
      merged.set(value, buffer.length);
      buffer = merged;
      for (;;) {
        const message = framing === "ndjson" ? takeLine() : takeFrame();
        if (message === undefined) break;
        queue.push(message);
        seen.push(message);
        waiting?.();
      }
    }
  })();

  function takeLine(): any {
    const newline = buffer.indexOf(10);
    if (newline < 0) return undefined;
    const line = new TextDecoder().decode(buffer.subarray(0, newline));
    buffer = buffer.subarray(newline + 1);
    return JSON.parse(line);
  }

  function takeFrame(): any {
    const text = new TextDecoder().decode(buffer.subarray(0, Math.min(buffer.length, 256)));
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) return undefined;
    const match = /^Content-Length: (\d+)$/.exec(text.slice(0, end));
    if (!match) throw new Error(`not a Content-Length frame: ${JSON.stringify(text.slice(0, 80))}`);
    const length = Number(match[1]);
    const start = end + 4;
    if (buffer.length < start + length) return undefined;
    const body = new TextDecoder().decode(buffer.subarray(start, start + length));
    buffer = buffer.subarray(start + length);
    return JSON.parse(body);
  }

  async function next(timeoutMs = 10_000): Promise<any> {
    const started = Date.now();
    while (queue.length === 0) {
      if (Date.now() - started > timeoutMs) throw new Error("no message from the agent in time");
      await new Promise<void>((r) => {
        waiting = r;
        setTimeout(r, 50);
      });
    }
    return queue.shift();
  }

  return {
    seen,
    rawText: () => raw,
    send: (bytes) => writer.write(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes),
    next,
    async response(id, timeoutMs = 10_000) {
      const started = Date.now();
      for (;;) {
        const index = queue.findIndex((m) => m.id === id && !("method" in m));
        if (index >= 0) return queue.splice(index, 1)[0];
        if (Date.now() - started > timeoutMs) throw new Error(`no response to ${id} in time`);
        await new Promise<void>((r) => {
          waiting = r;
          setTimeout(r, 50);
        });
      }
    },
    close: () => writer.close(),
  };
}

/**
 * A client-side SDK stream that speaks LSP-style Content-Length frames (the
 * SDK itself only offers NDJSON), so the SDK's `client()` can drive the agent
 * in that framing too.
 */
export function contentLengthStream(proc: AgentProcess): { readable: ReadableStream<any>; writable: WritableStream<any> } {
  const writer = proc.stdin.getWriter();
  const reader = proc.stdout.getReader();
  let buffer = new Uint8Array(0);
  const readable = new ReadableStream<any>({
    async pull(controller) {
      for (;;) {
        const head = new TextDecoder().decode(buffer.subarray(0, Math.min(buffer.length, 256)));
        const end = head.indexOf("\r\n\r\n");
        const match = end >= 0 ? /^Content-Length: (\d+)$/.exec(head.slice(0, end)) : null;
        if (end >= 0 && !match) return controller.error(new Error(`not a Content-Length frame: ${JSON.stringify(head.slice(0, 60))}`));
        if (match && buffer.length >= end + 4 + Number(match[1])) {
          const body = buffer.subarray(end + 4, end + 4 + Number(match[1]));
          buffer = buffer.subarray(end + 4 + Number(match[1]));
          controller.enqueue(JSON.parse(new TextDecoder().decode(body)));
          return;
        }
        const { value, done } = await reader.read();
        if (done) return controller.close();
        const merged = new Uint8Array(buffer.length + value.length);
        merged.set(buffer);
        merged.set(value, buffer.length);
        buffer = merged;
      }
    },
  });
  const writable = new WritableStream<any>({
    write: (message) => writer.write(contentLengthFrame(JSON.stringify(message))),
    close: () => writer.close(),
  });
  return { readable, writable };
}
