import { describe, expect, test } from "bun:test";
import { FrameDecoder, type FrameEvent } from "../../src/transport/frame-decoder.ts";
import { MAX_HEADER_BLOCK_BYTES, MAX_HEADER_LINE_BYTES } from "../../src/transport/frame-limits.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const LIMIT = 1024;

type Seen = string | { oversize: true } | { fatal: string };

function simplify(events: FrameEvent[]): Seen[] {
  return events.map((e) =>
    e.type === "message" ? dec.decode(e.body) : e.type === "oversize" ? { oversize: true as const } : { fatal: e.message },
  );
}

/** Feeds `input` in the given chunk sizes (the rest in one chunk) and returns everything decoded, end included. */
function decode(input: string | Uint8Array, sizes: number[] = [], maxMessageBytes = LIMIT): Seen[] {
  const bytes = typeof input === "string" ? enc.encode(input) : input;
  const decoder = new FrameDecoder({ maxMessageBytes });
  const events: FrameEvent[] = [];
  let pos = 0;
  for (const size of sizes) {
    if (pos >= bytes.length) break;
    // Copy so that views handed out must not depend on a reused buffer.
    for (const e of decoder.push(bytes.slice(pos, pos + size))) events.push(e.type === "message" ? { type: "message", body: e.body.slice() } : e);
    pos += size;
  }
  if (pos < bytes.length) events.push(...decoder.push(bytes.slice(pos)));
  events.push(...decoder.end());
  return simplify(events);
}

const bytewise = (input: string | Uint8Array) => new Array(typeof input === "string" ? enc.encode(input).length : input.length).fill(1);

/** Deterministic pseudo-random chunk sizes between 1 and 17. */
function randomSizes(length: number, seed: number): number[] {
  const sizes: number[] = [];
  let state = seed;
  for (let total = 0; total < length; ) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const size = 1 + (state % 17);
    sizes.push(size);
    total += size;
  }
  return sizes;
}

/** Asserts the same result whole, byte by byte, at every two-chunk split and in random chunkings. */
function expectEverySplit(input: string, expected: Seen[], maxMessageBytes = LIMIT): void {
  const length = enc.encode(input).length;
  expect(decode(input, [], maxMessageBytes)).toEqual(expected);
  expect(decode(input, bytewise(input), maxMessageBytes)).toEqual(expected);
  for (let i = 1; i < length; i++) expect(decode(input, [i], maxMessageBytes)).toEqual(expected);
  for (let seed = 1; seed <= 20; seed++) expect(decode(input, randomSizes(length, seed), maxMessageBytes)).toEqual(expected);
}

const frame = (body: string, header = "Content-Length") => `${header}: ${enc.encode(body).length}\r\n\r\n${body}`;

describe("FrameDecoder: detection", () => {
  test("nothing is decided before a significant byte", () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(enc.encode(" \r\n\t "))).toEqual([]);
    expect(decoder.framing).toBeUndefined();
    expect(decoder.end()).toEqual([]);
  });

  test("{ and [ select NDJSON after leading whitespace", () => {
    for (const first of ["{", "["]) {
      const decoder = new FrameDecoder();
      decoder.push(enc.encode(` \t\r\n${first}`));
      expect(decoder.framing).toBe("ndjson");
    }
  });

  test("C and c select Content-Length", () => {
    for (const first of ["C", "c"]) {
      const decoder = new FrameDecoder();
      decoder.push(enc.encode(`\r\n${first}`));
      expect(decoder.framing).toBe("content-length");
    }
  });

  test("an unrecognised first byte is fatal", () => {
    expect(decode("  hello\n")).toEqual([{ fatal: 'unrecognised framing: the first byte is "h" (0x68); expected "{" or "[" (NDJSON) or a "Content-Length:" header' }]);
    expect(decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b]))).toEqual([{ fatal: 'unrecognised framing: the first byte is 0xef; expected "{" or "[" (NDJSON) or a "Content-Length:" header' }]);
  });

  test("the framing never changes after detection", () => {
    expect(decode('{"a":1}\nContent-Length: 2\r\n\r\n{}\n')).toEqual(['{"a":1}', "Content-Length: 2", "{}"]);
  });
});

describe("FrameDecoder: NDJSON", () => {
  test("lines, CRLF, blank lines and a final unterminated line", () => {
    expectEverySplit('\r\n {"a":1}\n\n  \r\n{"b":2}\r\n\t\n[3]\n{"c":"x"}', ['{"a":1}', '{"b":2}', "[3]", '{"c":"x"}']);
  });

  test("multibyte UTF-8 split at every byte", () => {
    expectEverySplit('{"t":"héllo 🌍"}\n{"u":"ß"}\n', ['{"t":"héllo 🌍"}', '{"u":"ß"}']);
  });

  test("several lines in one chunk", () => {
    const decoder = new FrameDecoder();
    const events = simplify(decoder.push(enc.encode('{"a":1}\n{"a":2}\n{"a":3}\n{"a"')));
    expect(events).toEqual(['{"a":1}', '{"a":2}', '{"a":3}']);
    expect(simplify(decoder.push(enc.encode(":4}\n")))).toEqual(['{"a":4}']);
  });

  test("a line is passed on whatever it contains", () => {
    expect(decode('{"a":1}\nnot json\n')).toEqual(['{"a":1}', "not json"]);
  });

  test("a line of exactly the limit is accepted, with or without CR", () => {
    const line = `{"p":"${"x".repeat(LIMIT - 8)}"}`;
    expect(enc.encode(line).length).toBe(LIMIT);
    expectEverySplit(`${line}\n${line}\r\n${line}`, [line, line, line]);
  });

  test("an oversize line is skipped and the next one decodes", () => {
    const big = `{"p":"${"x".repeat(5000)}"}`;
    const expected = ['{"a":1}', { oversize: true }, '{"b":2}'];
    expect(decode(`{"a":1}\n${big}\n{"b":2}\n`)).toEqual(expected);
    expect(decode(`{"a":1}\n${big}\n{"b":2}\n`, randomSizes(6000, 7))).toEqual(expected);
    expect(decode(`{"a":1}\n${big}\n{"b":2}\n`, new Array(6000).fill(1))).toEqual(expected);
    expect(decode(`{"a":1}\n${`{"p":"${"x".repeat(LIMIT - 7)}"}`}\r\n{"b":2}\n`)).toEqual(expected);
  });

  test("an oversize line is refused before its end arrives", () => {
    const decoder = new FrameDecoder({ maxMessageBytes: LIMIT });
    expect(decoder.push(enc.encode(`{"p":"${"x".repeat(LIMIT)}`))).toEqual([{ type: "oversize" }]);
    for (let i = 0; i < 100; i++) expect(decoder.push(enc.encode("x".repeat(LIMIT)))).toEqual([]);
    expect(simplify(decoder.push(enc.encode('"}\n{"ok":true}\n')))).toEqual(['{"ok":true}']);
  });

  test("an oversize final unterminated line", () => {
    expect(decode(`{"a":1}\n{"p":"${"x".repeat(2000)}"}`)).toEqual(['{"a":1}', { oversize: true }]);
  });
});

describe("FrameDecoder: Content-Length", () => {
  test("frames with CRLF headers, split at every byte", () => {
    expectEverySplit(frame('{"a":1}') + frame('{"b":[1,2]}'), ['{"a":1}', '{"b":[1,2]}']);
  });

  test("bare LF headers, any header case, ignored headers", () => {
    const input =
      'content-length: 7\n\n{"a":1}' +
      'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:7\r\n\r\n{"b":2}' +
      'cOnTeNt-LeNgTh  :  7  \r\nX-Other: yes\n\r\n{"c":3}' +
      'Content-Length:\t2 \r\nContent-Length: 0000000000000002\r\n\r\n{}';
    expectEverySplit(input, ['{"a":1}', '{"b":2}', '{"c":3}', "{}"]);
  });

  test("Content-Length counts bytes of multibyte text", () => {
    const body = '{"t":"héllo 🌍"}';
    expect(enc.encode(body).length).toBe(body.length + 3); // é is 2 bytes, 🌍 is 4 bytes in 2 UTF-16 units
    expectEverySplit(frame(body) + frame('{"u":"ß"}'), [body, '{"u":"ß"}']);
  });

  test("several frames in one chunk, and blank lines between frames", () => {
    const decoder = new FrameDecoder();
    const events = simplify(decoder.push(enc.encode(`${frame("{}")}\r\n${frame("[]")}\n\n${frame('{"x":1}')}Content-Len`)));
    expect(events).toEqual(["{}", "[]", '{"x":1}']);
    expect(simplify(decoder.push(enc.encode("gth: 2\r\n\r\n{}")))).toEqual(["{}"]);
    expect(decoder.end()).toEqual([]);
  });

  test("a zero-length body is a message of no bytes", () => {
    expect(decode(`Content-Length: 0\r\n\r\n${frame("{}")}`)).toEqual(["", "{}"]);
  });

  test("a body of exactly the limit is accepted", () => {
    const body = `{"p":"${"x".repeat(LIMIT - 8)}"}`;
    expectEverySplit(frame(body), [body]);
  });

  test("an oversize body is skipped by its declared length", () => {
    const big = `{"p":"${"x\\n".repeat(1500)}"}`;
    const input = frame('{"a":1}') + frame(big) + frame('{"b":2}');
    const expected = ['{"a":1}', { oversize: true }, '{"b":2}'];
    expect(decode(input)).toEqual(expected);
    expect(decode(input, randomSizes(5000, 3))).toEqual(expected);
    expect(decode(input, bytewise(input))).toEqual(expected);
  });

  test("an oversize body is refused as soon as its header ends", () => {
    const decoder = new FrameDecoder({ maxMessageBytes: LIMIT });
    expect(decoder.push(enc.encode("Content-Length: 100000000\r\n\r\n"))).toEqual([{ type: "oversize" }]);
    const chunk = new Uint8Array(1_000_000).fill(0x7b);
    for (let i = 0; i < 100; i++) expect(decoder.push(chunk)).toEqual([]);
    expect(simplify(decoder.push(enc.encode(frame("{}"))))).toEqual(["{}"]);
  });

  test("a message before a fatal error is still reported", () => {
    expect(decode(`${frame("{}")}Content-Length: x\r\n\r\n{}`)).toEqual(["{}", { fatal: 'invalid Content-Length frame header: "Content-Length: x"' }]);
  });
});

describe("FrameDecoder: fatal header errors", () => {
  const cases: Array<[string, string, string]> = [
    ["missing Content-Length", 'Content-Lenght: 12\r\n\r\n{"a":1234567}', 'invalid Content-Length frame header: no Content-Length in "Content-Lenght: 12"'],
    ["missing among others", "Content-Type: x\r\n\r\n{}", 'invalid Content-Length frame header: no Content-Length in "Content-Type: x"'],
    ["non-numeric", "Content-Length: twelve\r\n\r\n{}", 'invalid Content-Length frame header: "Content-Length: twelve"'],
    ["negative", "Content-Length: -5\r\n\r\n{}", 'invalid Content-Length frame header: "Content-Length: -5"'],
    ["fractional", "Content-Length: 1.5\r\n\r\n{}", 'invalid Content-Length frame header: "Content-Length: 1.5"'],
    ["empty value", "Content-Length:\r\n\r\n{}", 'invalid Content-Length frame header: "Content-Length:"'],
    ["unsafe integer", "Content-Length: 99999999999999999999\r\n\r\n", 'invalid Content-Length frame header: "Content-Length: 99999999999999999999"'],
    ["no colon", "Content-Length 2\r\n\r\n{}", 'invalid Content-Length frame header: "Content-Length 2"'],
    ["conflicting lengths", "Content-Length: 2\r\ncontent-length : 3\r\n\r\n{}", "invalid Content-Length frame header: conflicting Content-Length values 2 and 3"],
    ["end inside a header", "Content-Length: 2\r\n", "end of input in the middle of a Content-Length frame header"],
    ["end inside a header line", `${frame("{}")}Content-Le`, "end of input in the middle of a Content-Length frame header"],
    ["end inside a body", "Content-Length: 10\r\n\r\n{}", "end of input in the middle of a Content-Length frame body (received 2 of 10 bytes)"],
    ["end inside a skipped body", "Content-Length: 2000\r\n\r\n{}", "end of input in the middle of an oversized Content-Length frame body (1998 bytes missing)"],
  ];
  for (const [name, input, message] of cases) {
    test(name, () => {
      const prefix: Seen[] = name === "end inside a header line" ? ["{}"] : name === "end inside a skipped body" ? [{ oversize: true }] : [];
      expect(decode(input)).toEqual([...prefix, { fatal: message }]);
      expect(decode(input, bytewise(input))).toEqual([...prefix, { fatal: message }]);
    });
  }

  test("a header line over 8 KiB", () => {
    const input = `Content-Length: 2\r\nX-Pad: ${"a".repeat(MAX_HEADER_LINE_BYTES)}\r\n\r\n{}`;
    const expected = [{ fatal: `invalid Content-Length frame header: a header line is longer than ${MAX_HEADER_LINE_BYTES} bytes` }];
    expect(decode(input)).toEqual(expected);
    expect(decode(input, randomSizes(input.length, 5))).toEqual(expected);
    // A line of exactly the limit is fine.
    const fits = `X-Pad: ${"a".repeat(MAX_HEADER_LINE_BYTES - 7)}\r\nContent-Length: 2\r\n\r\n{}`;
    expect(decode(`Content-Length: 2\r\n\r\n{}${fits}`)).toEqual(["{}", "{}"]);
  });

  test("a header block without a blank line within 64 KiB", () => {
    const decoder = new FrameDecoder();
    const line = enc.encode("X-Filler: abcdefgh\r\n");
    const events: FrameEvent[] = [...decoder.push(enc.encode("Content-Length: 2\r\n"))];
    let fed = 0;
    while (events.length === 0 && fed < 2 * MAX_HEADER_BLOCK_BYTES) {
      events.push(...decoder.push(line));
      fed += line.length;
    }
    expect(simplify(events)).toEqual([{ fatal: `invalid Content-Length frame header: no blank line ends the header within ${MAX_HEADER_BLOCK_BYTES} bytes` }]);
    expect(fed).toBeLessThanOrEqual(MAX_HEADER_BLOCK_BYTES);
  });

  test("nothing is decoded after a fatal error", () => {
    const decoder = new FrameDecoder();
    expect(simplify(decoder.push(enc.encode("Content-Length: x\r\n")))).toEqual([{ fatal: 'invalid Content-Length frame header: "Content-Length: x"' }]);
    expect(decoder.push(enc.encode(frame("{}")))).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  test("a decoder cannot be fed after end", () => {
    const decoder = new FrameDecoder();
    decoder.end();
    expect(() => decoder.push(enc.encode("{}"))).toThrow("after end");
  });

  test("maxMessageBytes must be a positive integer", () => {
    expect(() => new FrameDecoder({ maxMessageBytes: 0 })).toThrow(RangeError);
  });
});
