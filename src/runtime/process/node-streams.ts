/**
 * A spawned program's pipes as Node streams, for libraries that speak over
 * Node streams (the language servers' JSON-RPC). Every runtime has `node:stream`.
 * @module
 */
import { Readable, Writable } from "node:stream";

/** A Node readable over an async iterable of bytes; its errors are swallowed (the program's end is seen elsewhere). */
export function readableOf(source: AsyncIterable<Uint8Array>): Readable {
  const stream = Readable.from(source, { objectMode: false });
  stream.on("error", () => {});
  return stream;
}

/** A Node writable handing each chunk to `write`; a failed write ends it with that error (swallowed: the program is gone). */
export function writableOf(write: (bytes: Uint8Array) => Promise<void>): Writable {
  const stream = new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      write(chunk).then(() => done(), (error: Error) => done(error));
    },
  });
  stream.on("error", () => {});
  return stream;
}
