/**
 * Raw WebSocket frames (RFC 6455) written byte by byte, so any field can be
 * wrong: opcodes, RSV bits, lengths (7/16/64-bit, lying, non-minimal), masks
 * (or none), close codes and reasons, fragmentation, control frames that are
 * too long or fragmented, invalid UTF-8 in text.
 */
import type { Prng } from "./transport-prng.ts";

/** Fields of one frame; anything may be set to an invalid value. */
export interface FrameSpec {
  fin?: boolean;
  rsv?: number;
  opcode: number;
  payload: Uint8Array;
  /** Mask key; `null` sends the frame unmasked (a client must mask). */
  mask?: Uint8Array | null;
  /** Length to declare instead of the payload's. */
  declaredLength?: number | bigint;
  /** Force the 16- or 64-bit length form even for short payloads. */
  lengthForm?: 7 | 16 | 64;
}

/** Encodes one frame from its fields. */
export function encodeFrame(spec: FrameSpec, rng: Prng): Uint8Array {
  const fin = spec.fin ?? true;
  const mask = spec.mask === undefined ? rng.bytes(4) : spec.mask;
  const declared = spec.declaredLength ?? spec.payload.byteLength;
  const n = BigInt(declared);
  const form = spec.lengthForm ?? (n < 126n ? 7 : n < 65536n ? 16 : 64);
  const head: number[] = [(fin ? 0x80 : 0) | ((spec.rsv ?? 0) << 4) | (spec.opcode & 0x0f)];
  const maskBit = mask ? 0x80 : 0;
  if (form === 7) head.push(maskBit | Number(n & 0x7fn));
  else if (form === 16) head.push(maskBit | 126, Number((n >> 8n) & 0xffn), Number(n & 0xffn));
  else {
    head.push(maskBit | 127);
    for (let shift = 56n; shift >= 0n; shift -= 8n) head.push(Number((n >> shift) & 0xffn));
  }
  const out = new Uint8Array(head.length + (mask ? 4 : 0) + spec.payload.byteLength);
  out.set(head);
  let at = head.length;
  if (mask) {
    out.set(mask, at);
    at += 4;
  }
  for (let i = 0; i < spec.payload.byteLength; i++) out[at + i] = spec.payload[i]! ^ (mask ? mask[i & 3]! : 0);
  return out;
}

/** A close frame payload: code (2 bytes, big-endian) and reason. */
export function closePayload(code: number | undefined, reason: Uint8Array = new Uint8Array(0)): Uint8Array {
  if (code === undefined) return reason;
  const out = new Uint8Array(2 + reason.byteLength);
  out[0] = (code >> 8) & 0xff;
  out[1] = code & 0xff;
  out.set(reason, 2);
  return out;
}

/** Opcodes RFC 6455 reserves. */
export const RESERVED_OPCODES = [3, 4, 5, 6, 7, 0xb, 0xc, 0xd, 0xe, 0xf];
/** Close codes a peer may send. */
export const VALID_CLOSE_CODES = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999];
/** Close codes a peer must not send. */
export const INVALID_CLOSE_CODES = [0, 1, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535];
