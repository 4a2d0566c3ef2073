/**
 * The carrier's frames: every loopback connection the forwarder accepts in
 * a sandbox travels to the agent as one stream of frames over one pair of
 * pipes. A frame is a 9-byte header — kind (1 byte), stream id (4), value
 * (4, big-endian) — and, for `data` only, `value` bytes of payload (at most
 * `maxData`). `open` starts a stream (forwarder to agent), `end` ends one
 * direction, `reset` drops the stream, `credit` lets the other side send
 * `value` more bytes of the stream (flow control: neither side buffers more
 * than the window it granted).
 *
 * Self-contained on purpose: the forwarder runs it from its source text, so
 * it uses nothing from outside its body.
 * @module
 */

/** A frame as read. */
export type CarrierFrameHandler = (kind: number, id: number, value: number, payload: Uint8Array) => void;

/** The codec: frame kinds, bounds, an encoder and a reader that throws on a frame that breaks the format. */
export interface CarrierCodec {
  kinds: { open: 1; data: 2; end: 3; reset: 4; credit: 5 };
  /** The most payload one `data` frame carries. */
  maxData: number;
  /** The bytes a stream may have in flight in one direction before the receiver grants more. */
  window: number;
  encode(kind: number, id: number, value: number, payload?: Uint8Array): Uint8Array;
  /** A reader: feed it bytes as they come; it calls `onFrame` per whole frame and throws on a broken one. */
  reader(onFrame: CarrierFrameHandler): (chunk: Uint8Array) => void;
}

export function carrierCodec(): CarrierCodec {
  const HEADER = 9;
  const MAX_DATA = 64 * 1024;
  const kinds = { open: 1, data: 2, end: 3, reset: 4, credit: 5 } as const;
  const encode = (kind: number, id: number, value: number, payload?: Uint8Array): Uint8Array => {
    const frame = new Uint8Array(HEADER + (payload ? payload.length : 0));
    const view = new DataView(frame.buffer);
    view.setUint8(0, kind);
    view.setUint32(1, id);
    view.setUint32(5, value);
    if (payload) frame.set(payload, HEADER);
    return frame;
  };
  const reader = (onFrame: CarrierFrameHandler) => {
    let buffered: Uint8Array = new Uint8Array(0);
    return (chunk: Uint8Array) => {
      if (buffered.length === 0) buffered = chunk;
      else {
        const joined = new Uint8Array(buffered.length + chunk.length);
        joined.set(buffered);
        joined.set(chunk, buffered.length);
        buffered = joined;
      }
      let at = 0;
      while (buffered.length - at >= HEADER) {
        const view = new DataView(buffered.buffer, buffered.byteOffset + at, HEADER);
        const kind = view.getUint8(0);
        const id = view.getUint32(1);
        const value = view.getUint32(5);
        if (kind < kinds.open || kind > kinds.credit) throw new Error(`a carrier frame of unknown kind ${kind}`);
        if (id === 0) throw new Error("a carrier frame for stream 0");
        const length = kind === kinds.data ? value : 0;
        if (kind === kinds.data && (length === 0 || length > MAX_DATA)) throw new Error(`a data frame of ${length} bytes (1 to ${MAX_DATA})`);
        if (buffered.length - at < HEADER + length) break;
        onFrame(kind, id, value, buffered.subarray(at + HEADER, at + HEADER + length));
        at += HEADER + length;
      }
      // What is left is less than one frame: the buffer never holds more than a frame and a chunk.
      buffered = at === buffered.length ? new Uint8Array(0) : buffered.subarray(at);
    };
  };
  return { kinds, maxData: MAX_DATA, window: 256 * 1024, encode, reader };
}
