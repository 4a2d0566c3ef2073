/**
 * A strict reader of what the agent writes on stdout: every byte must belong
 * to a JSON-RPC message in the framing the client spoke (NDJSON lines, or
 * exactly `Content-Length: N\r\n\r\n` + N bytes). Independent of the agent's
 * own framing code, so that code is not used to check itself.
 */
import { outgoingProblem } from "./transport-oracle.ts";

/** Which framing to expect. */
export type OutputFraming = "ndjson" | "content-length";

const HEADER = /^Content-Length: (\d+)$/;
const PREFIX = new TextEncoder().encode("Content-Length: ");
const fatalDecoder = new TextDecoder("utf-8", { fatal: true });

/** Feeds chunks, calls `onMessage` per message and `onProblem` once for the first violation. */
export class OutputReader {
  #buffer = new Uint8Array(0);
  #broken = false;

  constructor(
    readonly framing: OutputFraming,
    readonly onMessage: (message: Record<string, unknown>) => void,
    readonly onProblem: (problem: string) => void,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.#broken) return;
    const merged = new Uint8Array(this.#buffer.byteLength + chunk.byteLength);
    merged.set(this.#buffer);
    merged.set(chunk, this.#buffer.byteLength);
    this.#buffer = merged;
    let offset = 0;
    for (;;) {
      const taken = this.framing === "ndjson" ? this.#line(offset) : this.#frame(offset);
      if (taken === undefined || this.#broken) break;
      offset = taken;
    }
    this.#buffer = this.#buffer.slice(offset);
  }

  /** Call at end of output: leftover bytes are a violation. */
  end(): void {
    if (!this.#broken && this.#buffer.byteLength > 0) this.#fail(`output ends inside a message: ${preview(this.#buffer)}`);
  }

  #line(offset: number): number | undefined {
    const newline = this.#buffer.indexOf(0x0a, offset);
    if (newline < 0) return undefined;
    this.#body(this.#buffer.subarray(offset, newline));
    return newline + 1;
  }

  #frame(offset: number): number | undefined {
    const view = this.#buffer.subarray(offset);
    for (let i = 0; i < Math.min(view.byteLength, PREFIX.length); i++) {
      if (view[i] !== PREFIX[i]) {
        this.#fail(`not a Content-Length frame: ${preview(view)}`);
        return undefined;
      }
    }
    const headEnd = indexOfCrlfCrlf(view);
    if (headEnd < 0) {
      if (view.byteLength > 40) this.#fail(`not a Content-Length frame: ${preview(view)}`);
      return undefined;
    }
    const match = HEADER.exec(new TextDecoder().decode(view.subarray(0, headEnd)));
    if (!match) {
      this.#fail(`not a Content-Length frame header: ${preview(view.subarray(0, headEnd + 4))}`);
      return undefined;
    }
    const length = Number(match[1]);
    const start = headEnd + 4;
    if (view.byteLength < start + length) return undefined;
    this.#body(view.subarray(start, start + length));
    return offset + start + length;
  }

  #body(bytes: Uint8Array): void {
    let message: unknown;
    try {
      message = JSON.parse(fatalDecoder.decode(bytes));
    } catch {
      return this.#fail(`not a JSON message (or not UTF-8): ${preview(bytes)}`);
    }
    const problem = outgoingProblem(message);
    if (problem) return this.#fail(`not a JSON-RPC 2.0 message (${problem}): ${preview(bytes)}`);
    this.onMessage(message as Record<string, unknown>);
  }

  #fail(problem: string): void {
    this.#broken = true;
    this.onProblem(problem);
  }
}

function indexOfCrlfCrlf(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.byteLength; i++) {
    if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a && bytes[i + 2] === 0x0d && bytes[i + 3] === 0x0a) return i;
  }
  return -1;
}

/** The first bytes of a buffer, quoted for a report. */
export function preview(bytes: Uint8Array, max = 160): string {
  const text = new TextDecoder().decode(bytes.subarray(0, max));
  return JSON.stringify(text) + (bytes.byteLength > max ? `… (${bytes.byteLength} bytes)` : "");
}
