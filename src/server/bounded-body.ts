/**
 * Reading an HTTP request body with a byte limit, before anything parses it:
 * a declared `Content-Length` over the limit is refused without reading a
 * byte, and a body without one (chunked) is read only until it passes the
 * limit. Never more than `limit` bytes of it are held.
 * @module
 */

/** The body's bytes, or why there are none. */
export type BoundedBody = { ok: true; bytes: Uint8Array<ArrayBuffer> } | { ok: false; reason: "too_large" | "unreadable" };

/** The declared length: a number for a plain decimal header, undefined when absent, NaN when malformed. */
function declaredLength(request: Request): number | undefined {
  const header = request.headers.get("content-length");
  if (header === null) return undefined;
  return /^\s*\d{1,16}\s*$/.test(header) ? Number(header) : Number.NaN;
}

function join(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Reads the request's body when it is at most `limit` bytes; a larger one is not read past the limit. */
export async function readBoundedBody(request: Request, limit: number): Promise<BoundedBody> {
  const declared = declaredLength(request);
  if (declared !== undefined && Number.isNaN(declared)) return { ok: false, reason: "unreadable" };
  if (declared !== undefined && declared > limit) return { ok: false, reason: "too_large" };
  if (!request.body) return { ok: true, bytes: new Uint8Array(0) };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      // The declared length is a promise too: a body that outgrows it is not the one announced.
      if (size > limit || (declared !== undefined && size > declared)) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    // The client went away or the body broke off: there is nothing to parse.
    return { ok: false, reason: "unreadable" };
  }
  return { ok: true, bytes: join(chunks, size) };
}
