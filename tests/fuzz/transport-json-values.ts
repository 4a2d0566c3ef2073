/**
 * Hostile JSON values for the transport fuzzer, written as JSON text by our
 * own serializer so literals JSON.stringify cannot produce (`1e400`, `-0`,
 * 30-digit integers, duplicate keys) can be part of a message.
 */
import type { Prng } from "./transport-prng.ts";

/** A JSON literal written out verbatim. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object whose entries may repeat a key (JSON allows it; parsers keep the last). */
export class DupObject {
  constructor(readonly entries: [string, unknown][]) {}
}

/** JSON text for `value`; `RawJson` and `DupObject` are written as they are. */
export function toJsonText(value: unknown): string {
  const parts: string[] = [];
  const write = (v: unknown): void => {
    if (v instanceof RawJson) parts.push(v.text);
    else if (v instanceof DupObject) {
      parts.push("{");
      v.entries.forEach(([k, x], i) => {
        if (i) parts.push(",");
        parts.push(JSON.stringify(k), ":");
        write(x);
      });
      parts.push("}");
    } else if (Array.isArray(v)) {
      parts.push("[");
      v.forEach((x, i) => {
        if (i) parts.push(",");
        write(x);
      });
      parts.push("]");
    } else if (v !== null && typeof v === "object") {
      parts.push("{");
      let first = true;
      for (const [k, x] of Object.entries(v)) {
        if (x === undefined) continue;
        if (!first) parts.push(",");
        first = false;
        parts.push(JSON.stringify(k), ":");
        write(x);
      }
      parts.push("}");
    } else {
      parts.push(JSON.stringify(v) ?? "null");
    }
  };
  write(value);
  return parts.join("");
}

const NUMBERS = [0, -1, 1, 2, 1.5, -2.5, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, -(2 ** 31), 2 ** 32, 4294967295, 0.1];
const RAW_NUMBERS = ["-0", "1e400", "-1e400", "123456789012345678901234567890", "1E2", "0.0000000000000000000001", "1e-400", "9007199254740993"];
const STRINGS = [
  "",
  " ",
  "sess_",
  "sess_does_not_exist",
  "@@SID@@",
  "@@CWD@@",
  "@@CWD@@/..",
  "@@CWD@@/../../etc",
  "relative/dir",
  ".",
  "/",
  "/dev/null",
  "/proc/self/mem",
  "/nonexistent/dir",
  "../../etc/passwd",
  "file:///etc/passwd",
  "file:///dev/zero",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff\ud800",
  "\u202e\u2066",
  "😀",
  "\r\n",
  "Content-Length: 5\r\n\r\n",
  '{"jsonrpc":"2.0"}',
  "__proto__",
  "constructor",
  "toString",
  "${HOME}",
  "$(id)",
  "`id`",
  "%s%n",
  "ask",
  "yolo",
  "read-only",
  "write",
  "faux/echo",
  "faux/nope",
  "anthropic/claude-sonnet-4-5",
  "off",
  "xhigh",
  "mode",
  "model",
  "thought_level",
  "acp-edge-credentials",
];

/** A random JSON value, at most `depth` levels deep. */
export function randomValue(rng: Prng, depth = 3): unknown {
  const kind = rng.weighted<string>([
    [3, "null"],
    [3, "bool"],
    [6, "number"],
    [2, "raw-number"],
    [10, "string"],
    [2, "random-string"],
    [depth > 0 ? 4 : 0, "array"],
    [depth > 0 ? 5 : 0, "object"],
  ]);
  switch (kind) {
    case "null":
      return null;
    case "bool":
      return rng.chance(0.5);
    case "number":
      return rng.chance(0.7) ? rng.pick(NUMBERS) : rng.range(-1000, 1000);
    case "raw-number":
      return new RawJson(rng.pick(RAW_NUMBERS));
    case "string":
      return rng.pick(STRINGS);
    case "random-string":
      return randomString(rng, rng.range(0, 40));
    case "array":
      return Array.from({ length: rng.range(0, 4) }, () => randomValue(rng, depth - 1));
    default: {
      const out: Record<string, unknown> = {};
      const n = rng.range(0, 4);
      for (let i = 0; i < n; i++) out[rng.chance(0.3) ? rng.pick(STRINGS) : randomString(rng, rng.range(1, 8))] = randomValue(rng, depth - 1);
      return out;
    }
  }
}

/** A string of random code points, lone surrogates and controls included. */
export function randomString(rng: Prng, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    const r = rng.float();
    if (r < 0.6) out += String.fromCharCode(rng.range(0x20, 0x7e));
    else if (r < 0.7) out += String.fromCharCode(rng.range(0, 0x1f));
    else if (r < 0.8) out += String.fromCharCode(rng.range(0xd800, 0xdfff));
    else out += String.fromCodePoint(rng.range(0x80, 0x10ffff) & ~0x800 /* avoid surrogates */);
  }
  return out;
}

/** Deeply nested arrays or objects as raw JSON text (too deep for a recursive writer). */
export function deepValue(rng: Prng, depth: number): RawJson {
  const useObject = rng.chance(0.5);
  const open = useObject ? '{"a":' : "[";
  const close = useObject ? "}" : "]";
  return new RawJson(open.repeat(depth) + "1" + close.repeat(depth));
}

/** A long string value. */
export function hugeString(rng: Prng, bytes: number): string {
  const unit = rng.pick(["x", "é", "😀", "\\", '"', "\u0000"]);
  return unit.repeat(Math.max(1, Math.floor(bytes / Math.max(1, new TextEncoder().encode(unit).length))));
}
