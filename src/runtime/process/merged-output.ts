/**
 * One async queue over a child's stdout and stderr pipes, in arrival order,
 * pausing the pipes while the consumer is behind.
 * @module
 */
import type { ChildProcess } from "node:child_process";

/** Reading pauses while this much output waits for the consumer, so a slow consumer blocks the command, not memory. */
const QUEUE_HIGH_WATER = 256 * 1024;
const QUEUE_LOW_WATER = 64 * 1024;

/** One async queue over both pipes, pausing them while the consumer is behind. */
export function mergedOutput(child: ChildProcess): { iterable: AsyncIterable<Uint8Array>; close(): void } {
  const streams = [child.stdout, child.stderr].filter((s) => s !== null);
  const queue: Uint8Array[] = [];
  let queued = 0;
  let open = streams.length;
  let closed = false;
  let paused = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  for (const stream of streams) {
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      open--;
      notify();
    };
    stream.on("data", (chunk: Uint8Array) => {
      if (closed) return;
      queue.push(chunk);
      queued += chunk.byteLength;
      if (!paused && queued > QUEUE_HIGH_WATER) {
        paused = true;
        for (const s of streams) s.pause();
      }
      notify();
    });
    stream.once("end", end);
    stream.once("close", end);
    stream.once("error", end);
  }
  const close = () => {
    if (closed) return;
    closed = true;
    for (const s of streams) s.destroy();
    notify();
  };

  const iterator: AsyncIterator<Uint8Array> = {
    async next() {
      for (;;) {
        const chunk = queue.shift();
        if (chunk) {
          queued -= chunk.byteLength;
          if (paused && queued < QUEUE_LOW_WATER && !closed) {
            paused = false;
            for (const s of streams) s.resume();
          }
          return { value: chunk, done: false };
        }
        if (closed || open === 0) return { value: undefined, done: true };
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    async return() {
      close();
      queue.length = 0;
      return { value: undefined, done: true };
    },
  };
  return { iterable: { [Symbol.asyncIterator]: () => iterator }, close };
}
