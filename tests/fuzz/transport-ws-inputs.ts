/**
 * WebSocket inputs: JSON-RPC messages as text frames (whole, fragmented,
 * with control frames in between), raw frame mutations, and reconnects to
 * `/acp` or `/v1/session/{ref}/apc`. Each input says whether the server may
 * or must close the connection over it, and whether the connection is left
 * unusable afterwards (then the fuzzer drops it and opens a new one).
 */
import { Prng } from "./transport-prng.ts";
import { expansionInput, extensionInput, generateRpcInput, type GenerateOptions, type RpcInput } from "./transport-rpc-inputs.ts";
import { closePayload, encodeFrame, INVALID_CLOSE_CODES, RESERVED_OPCODES, VALID_CLOSE_CODES } from "./transport-ws-frames.ts";

/** How the server may react to an input. */
export type CloseExpectation = "never" | "may" | "must";

/** One WebSocket input. */
export type WsInput =
  | { kind: "message"; rpc: RpcInput; wireSeed: number; close: CloseExpectation; knownBug?: string }
  | { kind: "frames"; label: string; frames: Uint8Array[]; close: CloseExpectation; terminal: boolean; knownBug?: string }
  | { kind: "reconnect"; route: "acp" | "apc" };

const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;
const enc = (s: string) => new TextEncoder().encode(s);
const fatal = new TextDecoder("utf-8", { fatal: true });
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const BAD_FRAME = "ws-bad-frame";

function isValidUtf8(segments: RpcInput["segments"]): boolean {
  try {
    for (const s of segments) if (typeof s !== "string") fatal.decode(s);
    // Split surrogates across segments are impossible: segments are whole strings or raw bytes.
    return true;
  } catch {
    return false;
  }
}

function sizeOf(segments: RpcInput["segments"]): number {
  return segments.reduce((n, s) => n + (typeof s === "string" ? s.length : s.byteLength), 0);
}

type Mutation = (rng: Prng) => Omit<Extract<WsInput, { kind: "frames" }>, "kind">;

const text = (rng: Prng, payload: Uint8Array, more: Partial<Parameters<typeof encodeFrame>[0]> = {}) => encodeFrame({ opcode: OPCODE.text, payload, ...more }, rng);
const smallJson = () => enc('{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"sess_x"}}');

/** Frame-level mutations; the protocol errors among them are the known bug class `ws-bad-frame`. */
const MUTATIONS: [number, Mutation][] = [
  [4, (rng) => ({ label: "reserved opcode", frames: [encodeFrame({ opcode: rng.pick(RESERVED_OPCODES), payload: rng.bytes(rng.range(0, 20)) }, rng)], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => ({ label: "RSV bits set", frames: [text(rng, smallJson(), { rsv: rng.range(1, 7) })], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => ({ label: "unmasked client frame", frames: [text(rng, smallJson(), { mask: null })], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => ({ label: "continuation without a message", frames: [encodeFrame({ opcode: OPCODE.continuation, payload: smallJson() }, rng)], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => ({ label: "new data frame inside a fragmented message", frames: [text(rng, enc('{"jsonrpc":'), { fin: false }), text(rng, smallJson())], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => ({ label: "control frame over 125 bytes", frames: [encodeFrame({ opcode: rng.pick([OPCODE.ping, OPCODE.pong, OPCODE.close]), payload: rng.bytes(rng.range(126, 300)) }, rng)], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => ({ label: "fragmented control frame", frames: [encodeFrame({ opcode: OPCODE.ping, fin: false, payload: enc("p") }, rng)], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [4, (rng) => {
    const code = rng.pick(INVALID_CLOSE_CODES);
    return { label: `close with invalid code ${code}`, frames: [encodeFrame({ opcode: OPCODE.close, payload: closePayload(code, enc("bye")) }, rng)], close: "may", terminal: true, knownBug: BAD_FRAME };
  }],
  [2, (rng) => ({ label: "close with a 1-byte payload", frames: [encodeFrame({ opcode: OPCODE.close, payload: new Uint8Array([3]) }, rng)], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [2, (rng) => ({ label: "close with an invalid UTF-8 reason", frames: [encodeFrame({ opcode: OPCODE.close, payload: closePayload(1000, new Uint8Array([0xff, 0xfe])) }, rng)], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => {
    const code = rng.chance(0.2) ? undefined : rng.pick(VALID_CLOSE_CODES);
    return { label: `close ${code ?? "without a code"}`, frames: [encodeFrame({ opcode: OPCODE.close, payload: code === undefined ? new Uint8Array(0) : closePayload(code, enc(rng.pick(["", "bye", "é"]))) }, rng)], close: "may", terminal: true };
  }],
  [4, (rng) => ({ label: "text frame with invalid UTF-8", frames: [text(rng, rng.pick([new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), new Uint8Array([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), new Uint8Array([0xc0, 0x80]), new Uint8Array([0x7b, 0xe2, 0x82])]))], close: "must", terminal: true, knownBug: BAD_FRAME })],
  [2, (rng) => {
    // Invalid UTF-8 split across fragments: only the whole message is invalid.
    return { label: "fragmented text with invalid UTF-8", frames: [text(rng, new Uint8Array([0x7b, 0x22, 0xe2]), { fin: false }), encodeFrame({ opcode: OPCODE.continuation, payload: new Uint8Array([0x28, 0xa1, 0x22, 0x7d]) }, rng)], close: "must", terminal: true, knownBug: BAD_FRAME };
  }],
  [3, (rng) => ({ label: "binary frame", frames: [encodeFrame({ opcode: OPCODE.binary, payload: smallJson() }, rng)], close: "must", terminal: true })],
  [3, (rng) => ({ label: "length over the 16 MiB limit (header only)", frames: [text(rng, new Uint8Array(0), { declaredLength: MAX_MESSAGE_BYTES + rng.range(1, 1 << 30) })], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [2, (rng) => ({ label: "64-bit length with the top bit set", frames: [text(rng, new Uint8Array(0), { declaredLength: (1n << 63n) + BigInt(rng.range(0, 1000)), lengthForm: 64 })], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [3, (rng) => ({ label: "frame cut short, then the connection ends", frames: [text(rng, smallJson().subarray(0, 10), { declaredLength: rng.range(11, 5000) })], close: "may", terminal: true })],
  [2, (rng) => ({ label: "fragmented message cut short, then the connection ends", frames: [text(rng, enc('{"jsonrpc":"2.0",'), { fin: false })], close: "may", terminal: true })],
  [2, (rng) => ({ label: "non-minimal length encoding", frames: [text(rng, enc("{}"), { lengthForm: rng.pick([16, 64] as const) })], close: "may", terminal: true })],
  [2, (rng) => ({ label: "random bytes", frames: [rng.bytes(rng.range(1, 64))], close: "may", terminal: true, knownBug: BAD_FRAME })],
  [6, (rng) => ({ label: "ping or pong with payload", frames: [encodeFrame({ opcode: rng.pick([OPCODE.ping, OPCODE.pong]), payload: rng.bytes(rng.range(0, 125)) }, rng)], close: "never", terminal: false })],
  [3, (rng) => ({ label: "empty text frame", frames: [text(rng, new Uint8Array(0))], close: "never", terminal: false })],
  [0.05, (rng) => {
    // Over the limit only in total: 17 fragments of 1 MiB.
    const piece = new Uint8Array(1 << 20).fill(0x20);
    const frames = Array.from({ length: 17 }, (_, i) => encodeFrame({ opcode: i === 0 ? OPCODE.text : OPCODE.continuation, fin: i === 16, payload: piece }, rng));
    return { label: "fragmented message over the 16 MiB limit", frames, close: "may", terminal: true, knownBug: BAD_FRAME };
  }],
];

/** Splits a message into text + continuation frames, sometimes with control frames in between. */
export function messageFrames(payload: Uint8Array, rng: Prng): Uint8Array[] {
  const mode = rng.weighted([[85, "whole"], [12, "fragmented"], [3, "after-ping"]]);
  if (mode === "whole" || payload.byteLength < 2) return [encodeFrame({ opcode: OPCODE.text, payload }, rng)];
  if (mode === "after-ping") return [encodeFrame({ opcode: OPCODE.ping, payload: enc("p") }, rng), encodeFrame({ opcode: OPCODE.text, payload }, rng)];
  const cuts = new Set<number>();
  const n = rng.range(1, Math.min(5, payload.byteLength - 1));
  for (let i = 0; i < n; i++) cuts.add(rng.range(1, payload.byteLength - 1));
  const points = [0, ...[...cuts].sort((a, b) => a - b), payload.byteLength];
  const frames: Uint8Array[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const last = i + 2 === points.length;
    frames.push(encodeFrame({ opcode: i === 0 ? OPCODE.text : OPCODE.continuation, fin: last, payload: payload.subarray(points[i], points[i + 1]) }, rng));
    if (!last && rng.chance(0.3)) frames.push(encodeFrame({ opcode: rng.pick([OPCODE.ping, OPCODE.pong]), payload: rng.bytes(rng.range(0, 10)) }, rng));
  }
  return frames;
}

/** The WebSocket input number `index` of a run. */
export function generateWsInput(seed: number, index: number, options: GenerateOptions): WsInput {
  const rng = new Prng(seed, index, 2);
  for (;;) {
    const kind = rng.weighted([[84, "message"], [15, "frames"], [1, "reconnect"]]);
    if (kind === "reconnect") return { kind: "reconnect", route: rng.chance(0.7) ? "acp" : "apc" };
    if (kind === "message") {
      const generated = generateRpcInput(rng, options);
      const rpc = extensionInput(seed, index, options) ?? expansionInput(seed, index) ?? generated;
      const wireSeed = rng.uint32();
      const badUtf8 = !isValidUtf8(rpc.segments);
      const tooBig = sizeOf(rpc.segments) > MAX_MESSAGE_BYTES;
      const input: WsInput = { kind: "message", rpc, wireSeed, close: badUtf8 || tooBig ? "must" : "never", ...(badUtf8 || tooBig ? { knownBug: BAD_FRAME } : {}) };
      if (options.excludeKnown && input.knownBug) continue;
      return input;
    }
    const mutation = rng.weighted(MUTATIONS)(rng);
    if (options.excludeKnown && mutation.knownBug) continue;
    return { kind: "frames", ...mutation };
  }
}
