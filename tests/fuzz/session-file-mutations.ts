/**
 * Seeded mutations of a session file's bytes: truncations, byte corruptions,
 * line deletions, duplications and swaps, junk lines, and shape changes of
 * one entry (a field removed, nulled, retyped, made huge or nested deep).
 * A mutation is plain JSON, so a failure can print it and a replay can
 * apply it again; positions are clamped, so any subset of a case's
 * mutations still applies.
 */

/** A small fast PRNG (mulberry32): the same seed gives the same sequence on every runtime. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Mutation =
  | { kind: "truncate"; at: number }
  | { kind: "flip_byte"; at: number; value: number }
  | { kind: "delete_range"; from: number; length: number }
  | { kind: "insert_bytes"; at: number; bytes: number[] }
  | { kind: "delete_line"; line: number }
  | { kind: "duplicate_line"; line: number }
  | { kind: "swap_lines"; a: number; b: number }
  | { kind: "insert_line"; at: number; text: string }
  | { kind: "shape"; line: number; path: Array<string | number>; change: ShapeChange };

/** What a shape mutation does to the value at its path. */
export type ShapeChange =
  | { op: "remove" }
  | { op: "set"; value: unknown }
  | { op: "huge_string"; length: number }
  | { op: "deep_nesting"; depth: number };

const JUNK_LINES = [
  "{}",
  "[]",
  "null",
  "42",
  '"type"',
  '{"type":42}',
  '{"type":"message"}',
  '{"type":"message","messageId":"m9","message":null}',
  '{"type":"message","messageId":"m9","message":{"role":"user","content":"text"}}',
  '{"type":"message","messageId":"m9","message":{"role":"robot","content":[]}}',
  '{"type":"tool_call","toolCallId":"c9","locations":"nope"}',
  '{"type":"tool_result","toolCallId":"c_read","status":"exploded"}',
  '{"type":"config","mode":"bogus","thinking":"maximal","model":7}',
  '{"type":"compaction","summary":"s","keptFrom":-5,"tokensBefore":0}',
  '{"type":"compaction","summary":"s","keptFrom":1e308,"tokensBefore":0}',
  '{"type":"grant","grant":{"effect":"allow","class":"execute","scope":{"kind":"everything"},"label":"x"}}',
  '{"type":"title","title":{"text":"object"}}',
  '{"type":"usage","used":"many"}',
  '{"type":"plan","entries":[{"content":1}]}',
  '{"type":"something_newer","payload":[1,2,3]}',
  '{"type":"session","version":1,"id":"sess_other","cwd":"/","createdAt":"x"}',
  '{"type":"__proto__","__proto__":{"polluted":true}}',
  "\u0000\u0001\u0002",
  '{"type":"message",',
];

const WRONG_VALUES: unknown[] = [null, 0, -1, 1.5, 1e308, "", "nope", true, false, [], {}, [null], { type: "text" }, ["a", 1]];

/** Splits bytes into lines (without their "\n"); the last element is the part after the final "\n". */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      lines.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  lines.push(bytes.subarray(start));
  return lines;
}

function joinLines(lines: Uint8Array[]): Uint8Array {
  const total = lines.reduce((n, l) => n + l.length, 0) + Math.max(0, lines.length - 1);
  const out = new Uint8Array(total);
  let at = 0;
  lines.forEach((line, index) => {
    out.set(line, at);
    at += line.length;
    if (index < lines.length - 1) out[at++] = 0x0a;
  });
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Real lines (the empty tail after a final "\n" excluded). */
function lineCount(lines: Uint8Array[]): number {
  return lines.length > 1 && lines[lines.length - 1]!.length === 0 ? lines.length - 1 : lines.length;
}

/** Applies one mutation; positions past the end are clamped or wrapped. */
export function applyMutation(bytes: Uint8Array, mutation: Mutation): Uint8Array {
  const clamp = (n: number) => Math.max(0, Math.min(bytes.length, n));
  switch (mutation.kind) {
    case "truncate":
      return bytes.slice(0, clamp(mutation.at));
    case "flip_byte": {
      if (bytes.length === 0) return bytes;
      const out = bytes.slice();
      out[mutation.at % bytes.length] = mutation.value;
      return out;
    }
    case "delete_range": {
      const from = clamp(mutation.from);
      const to = clamp(from + mutation.length);
      return concat(bytes.subarray(0, from), bytes.subarray(to));
    }
    case "insert_bytes": {
      const at = clamp(mutation.at);
      return concat(bytes.subarray(0, at), Uint8Array.from(mutation.bytes), bytes.subarray(at));
    }
    default:
      return applyLineMutation(bytes, mutation);
  }
}

function applyLineMutation(bytes: Uint8Array, mutation: Mutation): Uint8Array {
  const lines = splitLines(bytes);
  const count = lineCount(lines);
  if (count === 0) return bytes;
  const pick = (n: number) => n % count;
  switch (mutation.kind) {
    case "delete_line":
      lines.splice(pick(mutation.line), 1);
      break;
    case "duplicate_line": {
      const at = pick(mutation.line);
      lines.splice(at, 0, lines[at]!);
      break;
    }
    case "swap_lines": {
      const a = pick(mutation.a);
      const b = pick(mutation.b);
      [lines[a], lines[b]] = [lines[b]!, lines[a]!];
      break;
    }
    case "insert_line":
      lines.splice(mutation.at % (count + 1), 0, encoder.encode(mutation.text));
      break;
    case "shape": {
      const at = pick(mutation.line);
      const changed = changeShape(decoder.decode(lines[at]!), mutation.path, mutation.change);
      if (changed === undefined) return bytes;
      lines[at] = encoder.encode(changed);
      break;
    }
    default:
      return bytes;
  }
  return joinLines(lines);
}

const PLACEHOLDER = "\u0000fuzz-placeholder\u0000";

/** The line with the value at `path` changed, or undefined when the line is not JSON or has no such path. */
function changeShape(line: string, path: Array<string | number>, change: ShapeChange): string | undefined {
  try {
    return changeShapeOrThrow(line, path, change);
  } catch {
    return undefined; // a line already nested too deep to parse or serialise again
  }
}

function changeShapeOrThrow(line: string, path: Array<string | number>, change: ShapeChange): string | undefined {
  let root: unknown;
  try {
    root = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (path.length === 0) return undefined;
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null) return undefined;
    parent = (parent as Record<string | number, unknown>)[key];
  }
  if (typeof parent !== "object" || parent === null) return undefined;
  const container = parent as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  switch (change.op) {
    case "remove":
      if (Array.isArray(container) && typeof key === "number") container.splice(key, 1);
      else delete container[key];
      return JSON.stringify(root);
    case "set":
      container[key] = change.value;
      return JSON.stringify(root);
    case "huge_string":
      container[key] = "x".repeat(change.length);
      return JSON.stringify(root);
    case "deep_nesting":
      // Built as text: serialising a value this deep could itself overflow the stack.
      container[key] = PLACEHOLDER;
      return JSON.stringify(root).replace(JSON.stringify(PLACEHOLDER), `${"[".repeat(change.depth)}${"]".repeat(change.depth)}`);
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A random path into the JSON value of `line` (at least one key deep), or undefined. */
function randomPath(line: string, random: () => number): Array<string | number> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const path: Array<string | number> = [];
  while (typeof value === "object" && value !== null) {
    const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    if (keys.length === 0) break;
    const key = keys[Math.floor(random() * keys.length)]!;
    path.push(key);
    value = (value as Record<string | number, unknown>)[key];
    // Stop early sometimes, so whole sub-objects get replaced too.
    if (random() < 0.35) break;
  }
  return path.length > 0 ? path : undefined;
}

function randomChange(random: () => number): ShapeChange {
  const roll = random();
  if (roll < 0.3) return { op: "remove" };
  if (roll < 0.85) return { op: "set", value: WRONG_VALUES[Math.floor(random() * WRONG_VALUES.length)] };
  if (roll < 0.93) return { op: "huge_string", length: 1 + Math.floor(random() * 200_000) };
  return { op: "deep_nesting", depth: [200, 5_000, 100_000][Math.floor(random() * 3)]! };
}

/** One random mutation of `bytes`. Entry lines are preferred over the header, which is damaged only rarely. */
export function randomMutation(bytes: Uint8Array, random: () => number): Mutation {
  const n = Math.max(1, bytes.length);
  const lines = splitLines(bytes);
  const count = Math.max(1, lineCount(lines));
  // Line 0 is the header: damaging it makes the file corrupt by design, so aim at it in 1 of ~30 picks.
  const entryLine = () => (count > 1 && random() > 0.03 ? 1 + Math.floor(random() * (count - 1)) : Math.floor(random() * count));
  const roll = random();
  if (roll < 0.08) return { kind: "truncate", at: Math.floor(random() * n) };
  if (roll < 0.2) return { kind: "flip_byte", at: Math.floor(random() * n), value: Math.floor(random() * 256) };
  if (roll < 0.27) return { kind: "delete_range", from: Math.floor(random() * n), length: 1 + Math.floor(random() * 64) };
  if (roll < 0.33) {
    const pool = [0x0a, 0x7b, 0x7d, 0x22, 0x5c, 0x00, 0xff, 0xc3, 0xe2, 0x80];
    const bytesToInsert = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pool[Math.floor(random() * pool.length)]!);
    return { kind: "insert_bytes", at: Math.floor(random() * n), bytes: bytesToInsert };
  }
  if (roll < 0.41) return { kind: "delete_line", line: entryLine() };
  if (roll < 0.49) return { kind: "duplicate_line", line: entryLine() };
  if (roll < 0.55) return { kind: "swap_lines", a: entryLine(), b: entryLine() };
  if (roll < 0.65) return { kind: "insert_line", at: 1 + Math.floor(random() * count), text: JUNK_LINES[Math.floor(random() * JUNK_LINES.length)]! };
  for (let attempt = 0; attempt < 5; attempt++) {
    const line = entryLine();
    const path = randomPath(decoder.decode(lines[line] ?? new Uint8Array()), random);
    if (path) return { kind: "shape", line, path, change: randomChange(random) };
  }
  return { kind: "delete_line", line: entryLine() };
}

/** A short description of a mutation for failure reports (huge values abbreviated). */
export function describeMutation(mutation: Mutation): string {
  return JSON.stringify(mutation, (_key, value) => (typeof value === "string" && value.length > 120 ? `${value.slice(0, 120)}…(${value.length})` : value));
}
