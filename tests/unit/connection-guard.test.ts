/**
 * The connection guard on its own, between in-memory streams standing in for
 * the transport (below) and the SDK (above): it must never wait for an answer
 * that does not come, and must keep what is not JSON-RPC away from the SDK.
 */
import { describe, expect, test } from "bun:test";
import { guardConnection } from "../../src/acp/connection/connection-guard.ts";
import { waitFor } from "../helpers/expect-error.ts";

type Message = Record<string, unknown>;

/** A transport whose input the test feeds and whose output it records; the guard on top. */
function guarded(options: { drainTimeoutMs?: number; initializeTimeoutMs?: number; output?: WritableStream<Message>; flushed?: () => Promise<void>; onBusyChange?: (busy: boolean) => void; onSessionCancel?: (sessionId: string, arrival: number) => void } = {}) {
  const input = new TransformStream<Message, Message>();
  const written: Message[] = [];
  const output = options.output ?? new WritableStream<Message>({ write: (m) => void written.push(m) });
  let inputEnded = false;
  const guard = guardConnection(
    { readable: input.readable, writable: output, ...(options.flushed ? { flushed: options.flushed } : {}) },
    { ...options, onInputEnd: () => (inputEnded = true) },
  );
  const feed = input.writable.getWriter();
  // Read like the SDK does, all the time: the guard only moves while its output is read.
  const passed: Message[] = [];
  const reader = guard.readable.getReader();
  let isClosed = false;
  const closed = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return void (isClosed = true);
      passed.push(value);
    }
  })();
  return {
    guard,
    written,
    passed,
    closed,
    isClosed: () => isClosed,
    inputEnded: () => inputEnded,
    send: (message: Message) => feed.write(message),
    end: () => feed.close(),
    answer: async (message: Message) => {
      const writer = guard.writable.getWriter();
      try {
        await writer.write(message);
      } finally {
        writer.releaseLock();
      }
    },
  };
}

const request = (id: unknown, method: string) => ({ jsonrpc: "2.0", id, method, params: {} });

describe("connection guard", () => {
  test("an initialize that is never answered holds later messages only for the bound, and end of input still completes", async () => {
    const g = guarded({ initializeTimeoutMs: 20, drainTimeoutMs: 20 });
    await g.send(request(1, "initialize"));
    await g.send(request(2, "session/list"));
    await g.end();
    await g.closed;
    expect(g.passed).toEqual([request(1, "initialize"), request(2, "session/list")]);
    expect(g.inputEnded()).toBe(true);
  });

  test("a message that is not JSON-RPC is answered -32600 by the guard and never passed on, even as initialize", async () => {
    const g = guarded({ initializeTimeoutMs: 60_000 });
    for (const bad of [
      { id: 1, method: "initialize", params: {} },
      { jsonrpc: "1.0", id: 1, method: "initialize" },
      { jsonrpc: "2.0", id: { x: 1 }, method: "initialize" },
      { jsonrpc: "2.0", id: 1, method: 7 },
      {},
    ]) {
      await g.send(bad);
    }
    await g.send(request(2, "session/list"));
    await waitFor(() => g.passed.length > 0, 5000, "the good request to pass");
    expect(g.passed).toEqual([request(2, "session/list")]);
    for (const reply of g.written) expect(reply).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(g.written.map((r) => (r.error as { message: string }).message)).toEqual([
      'Invalid request: "jsonrpc" must be "2.0"',
      'Invalid request: "jsonrpc" must be "2.0"',
      'Invalid request: "id" must be a string, a number or null',
      'Invalid request: "method" must be a string',
      'Invalid request: a message needs a "method" (request or notification) or an "id" (response)',
    ]);
  });

  test("two open requests with one id: end of input waits for both answers", async () => {
    const g = guarded({ drainTimeoutMs: 60_000 });
    await g.send(request(7, "session/list"));
    await g.send(request(7, "session/list"));
    await g.end();
    await waitFor(() => g.inputEnded(), 5000, "end of input");
    await g.answer({ jsonrpc: "2.0", id: 7, result: {} });
    // Give the guard every chance to close early: several macrotasks pass with one answer still due.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    expect(g.isClosed()).toBe(false);
    await g.answer({ jsonrpc: "2.0", id: 7, result: {} });
    await g.closed;
    expect(g.passed).toHaveLength(2);
  });

  test("when the output fails, an initialize still waiting for its answer stops holding the input", async () => {
    let fail = false;
    const output = new WritableStream<Message>({
      write() {
        if (fail) throw new Error("the client went away");
      },
    });
    const g = guarded({ output, initializeTimeoutMs: 60_000, drainTimeoutMs: 60_000 });
    await g.send(request(1, "initialize"));
    await g.send(request(2, "session/list"));
    fail = true;
    await g.answer({ jsonrpc: "2.0", method: "session/update", params: {} }).catch(() => undefined);
    await g.end();
    await g.closed;
    expect(g.passed).toEqual([request(1, "initialize"), request(2, "session/list")]);
  });

  test("afterAnswer runs every callback of a request, in order, once its answer is written and not before", async () => {
    const g = guarded();
    await g.send(request(1, "session/new"));
    await waitFor(() => g.passed.length === 1, 5000, "the request to pass");
    const seen: string[] = [];
    g.guard.afterAnswer(1, () => seen.push(`first, after ${g.written.length} written`));
    g.guard.afterAnswer(1, () => seen.push(`second, after ${g.written.length} written`));
    await g.answer({ jsonrpc: "2.0", method: "session/update", params: {} });
    expect(seen).toEqual([]);
    await g.answer({ jsonrpc: "2.0", id: 1, result: {} });
    expect(seen).toEqual(["first, after 2 written", "second, after 2 written"]);
  });

  test("afterAnswer waits for the transport to flush what it holds, when it says when that is", async () => {
    let flush!: () => void;
    const g = guarded({ flushed: () => new Promise<void>((resolve) => (flush = resolve)) });
    await g.send(request("a", "session/load"));
    await waitFor(() => g.passed.length === 1, 5000, "the request to pass");
    let ran = false;
    g.guard.afterAnswer("a", () => (ran = true));
    await g.answer({ jsonrpc: "2.0", id: "a", error: { code: -32602, message: "bad" } });
    expect(ran).toBe(false);
    flush();
    await waitFor(() => ran, 5000, "the callback after the flush");
  });

  test("afterAnswer runs at once when no answer is due, and when the client is gone", async () => {
    const g = guarded();
    let unknown = false;
    g.guard.afterAnswer(99, () => (unknown = true));
    expect(unknown).toBe(true);

    let fail = false;
    const output = new WritableStream<Message>({
      write() {
        if (fail) throw new Error("the client went away");
      },
    });
    const h = guarded({ output });
    await h.send(request(2, "session/resume"));
    await waitFor(() => h.passed.length === 1, 5000, "the request to pass");
    let released = false;
    h.guard.afterAnswer(2, () => (released = true));
    fail = true;
    await h.answer({ jsonrpc: "2.0", method: "session/update", params: {} }).catch(() => undefined);
    expect(released).toBe(true);
  });

  test("answered settles once every request received so far is answered", async () => {
    const g = guarded();
    await g.send(request(1, "session/prompt"));
    await g.send(request(2, "session/prompt"));
    await waitFor(() => g.passed.length === 2, 5000, "the requests to pass");
    let settled = false;
    const all = g.guard.answered(60_000).then(() => (settled = true));
    await g.answer({ jsonrpc: "2.0", id: 1, result: {} });
    expect(settled).toBe(false);
    await g.answer({ jsonrpc: "2.0", id: 2, result: {} });
    await all;
    expect(settled).toBe(true);
  });

  test("it says when it starts and stops owing an answer: a reused id counts twice, a gone client owes nothing", async () => {
    const changes: boolean[] = [];
    const g = guarded({ onBusyChange: (busy) => changes.push(busy) });
    await g.send(request(1, "session/prompt"));
    await waitFor(() => g.passed.length === 1);
    await g.send(request(1, "session/prompt"));
    await g.send({ jsonrpc: "2.0", method: "session/cancel", params: {} });
    await waitFor(() => g.passed.length === 3);
    expect(changes).toEqual([true]);
    await g.answer({ jsonrpc: "2.0", id: 1, result: {} });
    expect(changes).toEqual([true]);
    await g.answer({ jsonrpc: "2.0", id: 1, result: {} });
    expect(changes).toEqual([true, false]);

    const failing = guarded({ output: new WritableStream({ write: () => Promise.reject(new Error("gone")) }), onBusyChange: (busy) => changes.push(busy) });
    await failing.send(request(7, "session/prompt"));
    await waitFor(() => failing.passed.length === 1);
    await failing.answer({ jsonrpc: "2.0", id: 7, result: {} }).catch(() => undefined);
    expect(changes).toEqual([true, false, true, false]);
  });

  test("each session/cancel is reported as it passes, with its place among the requests around it", async () => {
    const cancels: Array<[string, number, string[]]> = [];
    let g!: ReturnType<typeof guarded>;
    g = guarded({ onSessionCancel: (sessionId, arrival) => cancels.push([sessionId, arrival, g.passed.map((m) => String(m.id))]) });
    const cancel = (sessionId: unknown) => ({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
    await g.send(request("p1", "session/prompt"));
    await g.send(request("p2", "session/prompt"));
    await g.send(cancel("s1"));
    await g.send(request("p3", "session/prompt"));
    await g.send(cancel(42)); // not a session id: nothing to report
    await g.send({ jsonrpc: "2.0", method: "session/cancel" });
    await waitFor(() => g.passed.length === 6, 5000, "every message to pass");
    // Reported before the request sent after it passed on, after those sent before it did.
    expect(cancels).toEqual([["s1", 3, ["p1", "p2"]]]);
    expect([g.guard.arrivalOf("p1"), g.guard.arrivalOf("p2"), g.guard.arrivalOf("p3")]).toEqual([1, 2, 4]);
    await g.answer({ jsonrpc: "2.0", id: "p1", result: {} });
    expect(g.guard.arrivalOf("p1")).toBeUndefined();
  });
});
