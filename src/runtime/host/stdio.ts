/**
 * The process's stdin and stdout as Web Streams of bytes, using each
 * runtime's fastest native path.
 * @module
 */
import process from "node:process";
import { Readable, Writable } from "node:stream";
import { runtimeName } from "./detect.ts";

export interface ByteStreams {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

interface BunFileSink {
  write(chunk: Uint8Array): number | Promise<number>;
  flush(): number | Promise<number>;
  end(): number | Promise<number>;
}
interface BunLike {
  stdin: { stream(): ReadableStream<Uint8Array> };
  stdout: { writer(): BunFileSink };
}
interface DenoLike {
  stdin: { readable: ReadableStream<Uint8Array> };
  stdout: { writable: WritableStream<Uint8Array> };
}

/** stdin/stdout of this process. Call once: the streams own the file descriptors. */
export function stdioStreams(): ByteStreams {
  if (runtimeName === "bun") {
    const bun = (globalThis as unknown as { Bun: BunLike }).Bun;
    const sink = bun.stdout.writer();
    return {
      readable: bun.stdin.stream(),
      writable: new WritableStream<Uint8Array>({
        async write(chunk) {
          await sink.write(chunk);
          await sink.flush();
        },
        async close() {
          await sink.end();
        },
      }),
    };
  }
  if (runtimeName === "deno") {
    const deno = (globalThis as unknown as { Deno: DenoLike }).Deno;
    return { readable: deno.stdin.readable, writable: deno.stdout.writable };
  }
  return {
    readable: Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
    writable: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
  };
}
