/**
 * Standard input for commands a person runs by hand (`acp-edge login`):
 * raw key presses from a terminal, where nothing is echoed unless the
 * program echoes it, or the whole input when it is a pipe or a file.
 * @module
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { redact } from "../secrets.ts";

/** Whether standard input is a terminal (someone types) rather than a pipe or a file. */
export function stdinIsTerminal(): boolean {
  return process.stdin.isTTY === true;
}

/** Key presses from the terminal on standard input, in raw mode: no echo, no line editing, Ctrl-C arrives as a byte. */
export interface RawTerminalInput {
  /** The next bytes typed or pasted; undefined once the input has ended. */
  next(): Promise<Uint8Array | undefined>;
  /** Puts the terminal back as it was and stops reading. Idempotent. */
  close(): void;
}

/** Switches the terminal on standard input to raw mode until `close` (or the process's exit). */
export function openRawTerminalInput(): RawTerminalInput {
  const stdin = process.stdin;
  const queue: Uint8Array[] = [];
  let ended = false;
  let waiting: ((chunk: Uint8Array | undefined) => void) | undefined;
  const deliver = (chunk: Uint8Array | undefined) => {
    const wake = waiting;
    waiting = undefined;
    if (wake) wake(chunk);
    else if (chunk) queue.push(chunk);
  };
  const onData = (chunk: Uint8Array | string) => deliver(typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk));
  const onEnd = () => {
    ended = true;
    deliver(undefined);
  };
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("error", onEnd);
    process.off("exit", close);
    try {
      stdin.setRawMode(false);
    } catch {
      // The terminal is gone already.
    }
    stdin.pause();
    onEnd();
  };
  stdin.setRawMode(true);
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("error", onEnd);
  // A terminal left in raw mode is unusable for whoever typed in it; whatever ends the process restores it.
  process.on("exit", close);
  stdin.resume();
  return {
    next: () => {
      const queued = queue.shift();
      if (queued) return Promise.resolve(queued);
      if (ended) return Promise.resolve(undefined);
      return new Promise((resolve) => (waiting = resolve));
    },
    close,
  };
}

/** Everything on standard input up to its end; rejects once more than `limit` bytes arrived. */
export async function readStdinToEnd(limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : new Uint8Array(chunk);
    size += bytes.length;
    if (size > limit) {
      process.stdin.destroy();
      throw new Error(`standard input is longer than ${limit} bytes`);
    }
    chunks.push(bytes);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** Writes text to standard error as it is (a prompt stays on its line), with secrets hidden. */
export function writePrompt(text: string): void {
  process.stderr.write(redact(text));
}
