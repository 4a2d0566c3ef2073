/**
 * A bound on what one language-server message may hold: the server's output
 * passes through unchanged while its LSP frames (`Content-Length` headers,
 * then the body) are followed, and it ends with an error at the first header
 * that is too long or announces a body beyond `maxBody` — before the JSON-RPC
 * reader would buffer it. Memory for one message is bounded by that, whatever
 * the server sends.
 * @module
 */

/** A header block longer than this is not one a server sends. */
const MAX_HEADER_BYTES = 8 * 1024;
const CRLFCRLF = [13, 10, 13, 10];

/** Passes `source` through, throwing once a frame breaks the bounds. */
export async function* guardFrames(source: AsyncIterable<Uint8Array>, maxBody: number): AsyncGenerator<Uint8Array> {
  let header: number[] = [];
  let bodyLeft = 0;
  for await (const chunk of source) {
    let i = 0;
    while (i < chunk.length) {
      if (bodyLeft > 0) {
        const skip = Math.min(bodyLeft, chunk.length - i);
        bodyLeft -= skip;
        i += skip;
        continue;
      }
      header.push(chunk[i]!);
      i += 1;
      if (header.length > MAX_HEADER_BYTES) throw new Error("a message header was too long");
      if (!endsWith(header, CRLFCRLF)) continue;
      const length = Number(/content-length:\s*(\d+)/i.exec(new TextDecoder().decode(new Uint8Array(header)))?.[1]);
      if (!Number.isSafeInteger(length)) throw new Error("a message had no length");
      if (length > maxBody) throw new Error(`a message of ${length} bytes was larger than ${maxBody}`);
      bodyLeft = length;
      header = [];
    }
    yield chunk;
  }
}

function endsWith(bytes: number[], tail: number[]): boolean {
  if (bytes.length < tail.length) return false;
  for (let k = 0; k < tail.length; k++) if (bytes[bytes.length - tail.length + k] !== tail[k]) return false;
  return true;
}
