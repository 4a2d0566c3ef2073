/**
 * The fuzzer's judge must be right before its verdicts mean anything: what
 * counts as a request that must be answered, when an answer is one too many,
 * and what output breaks the framing.
 */
import { describe, expect, test } from "bun:test";
import { Ledger, outgoingProblem, requestIn } from "./transport-oracle.ts";
import { OutputReader } from "./transport-output-reader.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("requestIn", () => {
  test("a valid JSON-RPC 2.0 request must be answered, keyed by its id as a JSON value", () => {
    expect(requestIn(bytes('{"jsonrpc":"2.0","id":1.0,"method":"x"}'), 100)).toEqual({ key: "1", required: true });
    expect(requestIn(bytes('{"jsonrpc":"2.0","id":"a","method":"x","params":{}}'), 100)).toEqual({ key: '"a"', required: true });
  });

  test("id null, notifications, responses, batches and bodies over the limit owe nothing", () => {
    for (const text of ['{"jsonrpc":"2.0","id":null,"method":"x"}', '{"jsonrpc":"2.0","method":"x"}', '{"jsonrpc":"2.0","id":1,"result":{}}', '[{"jsonrpc":"2.0","id":1,"method":"x"}]', "{", '{"jsonrpc":"2.0","id":1e400,"method":"x"}']) {
      expect(requestIn(bytes(text), 100)).toBeUndefined();
    }
    expect(requestIn(bytes('{"jsonrpc":"2.0","id":1,"method":"x"}'), 10)).toBeUndefined();
  });

  test("an invalid envelope with a usable id may be answered with it", () => {
    expect(requestIn(bytes('{"id":2,"method":"initialize"}'), 100)).toEqual({ key: "2", required: false });
    expect(requestIn(bytes('{"jsonrpc":"1.0","id":"b","method":"x"}'), 100)).toEqual({ key: '"b"', required: false });
    expect(requestIn(bytes('{"jsonrpc":"2.0","id":{},"method":"x"}'), 100)).toBeUndefined();
  });

  test("invalid UTF-8 inside a string still leaves a request that must be answered", () => {
    const body = new Uint8Array([...bytes('{"jsonrpc":"2.0","id":3,"method":"a'), 0xff, ...bytes('"}')]);
    expect(requestIn(body, 100)).toEqual({ key: "3", required: true });
  });
});

describe("Ledger", () => {
  test("counts owed answers per id; a second answer or an unknown id is reported", () => {
    const ledger = new Ledger();
    ledger.expect("1", true);
    ledger.expect("1", true);
    expect(ledger.settled()).toBe(false);
    expect(ledger.answer(1)).toBeUndefined();
    expect(ledger.unanswered()).toEqual(["1"]);
    expect(ledger.answer(1)).toBeUndefined();
    expect(ledger.settled()).toBe(true);
    expect(ledger.answer(1)).toContain("answered 3 times");
    expect(ledger.answer("zz")).toContain("no request carried");
    expect(ledger.answer(null)).toBeUndefined();
  });
});

describe("outgoingProblem and OutputReader", () => {
  test("only JSON-RPC 2.0 messages pass", () => {
    expect(outgoingProblem({ jsonrpc: "2.0", id: 1, result: {} })).toBeUndefined();
    expect(outgoingProblem({ jsonrpc: "2.0", method: "session/update", params: {} })).toBeUndefined();
    expect(outgoingProblem({ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } })).toContain("both");
    expect(outgoingProblem({ jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "x" } })).toContain("integer code");
    expect(outgoingProblem({ id: 1, result: {} })).toContain("jsonrpc");
  });

  test("Content-Length output must be exactly header + body, split anywhere", () => {
    const seen: unknown[] = [];
    const problems: string[] = [];
    const reader = new OutputReader("content-length", (m) => seen.push(m), (p) => problems.push(p));
    const frame = bytes('Content-Length: 36\r\n\r\n{"jsonrpc":"2.0","id":1,"result":{}}');
    for (const b of frame) reader.push(new Uint8Array([b]));
    expect(seen).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    reader.push(bytes('{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    expect(problems[0]).toContain("not a Content-Length frame");
  });

  test("NDJSON output with a stray line is a problem", () => {
    const problems: string[] = [];
    const reader = new OutputReader("ndjson", () => {}, (p) => problems.push(p));
    reader.push(bytes('{"jsonrpc":"2.0","id":1,"result":{}}\nhello\n'));
    expect(problems).toHaveLength(1);
  });
});
