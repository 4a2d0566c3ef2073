import { describe, expect, test } from "bun:test";
import { createMessageStream, FramingError, type JsonRpcObject } from "../../src/transport/message-stream.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
const BATCH_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: JSON-RPC batches are not supported"}}';
const nonObject = (data: string) => `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request","data":${data}}}`;
const oversize = (limit: number) => `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: message exceeds the ${limit}-byte limit"}}`;

const request = (id: number, method = "m", params: unknown = {}) => ({ jsonrpc: "2.0", id, method, params });
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const frame = (body: string) => `Content-Length: ${enc.encode(body).length}\r\n\r\n${body}`;
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A byte source from chunks; stays open (never ends) when `open` is set. */
function source(chunks: Array<string | Uint8Array>, open = false) {
  const queue = chunks.map((c) => (typeof c === "string" ? enc.encode(c) : c));
  const state = { cancelled: false, reads: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.reads++;
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else if (!open) controller.close();
      else return new Promise(() => {});
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

/** A byte sink that records each write separately. */
function sink(sinkWrite?: (chunk: Uint8Array) => Promise<void>) {
  const chunks: Uint8Array[] = [];
  const state = { closed: false, active: 0, maxActive: 0 };
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      state.active++;
      state.maxActive = Math.max(state.maxActive, state.active);
      chunks.push(chunk.slice());
      await sinkWrite?.(chunk);
      state.active--;
    },
    close() {
      state.closed = true;
    },
  });
  return { stream, chunks, state, text: () => chunks.map((c) => dec.decode(c)).join("") };
}

async function readAll(readable: ReadableStream<JsonRpcObject>): Promise<JsonRpcObject[]> {
  const out: JsonRpcObject[] = [];
  for await (const message of readable) out.push(message);
  return out;
}

const bytewise = (text: string) => [...enc.encode(text)].map((b) => new Uint8Array([b]));

describe("createMessageStream: reading", () => {
  test("NDJSON objects arrive and end of input closes the readable", async () => {
    const input = source([line(request(1)), `${JSON.stringify(request(2, "héllo 🌍"))}\r\n\n`, JSON.stringify(request(3))]);
    const output = sink();
    const stream = createMessageStream(input.stream, output.stream);
    expect(await readAll(stream.readable)).toEqual([request(1), request(2, "héllo 🌍"), request(3)]);
    expect(await stream.closed).toEqual({ reason: "end" });
    expect(stream.framing()).toBe("ndjson");
    expect(output.chunks).toEqual([]);
  });

  test("invalid JSON gets a parse error and the next message still arrives", async () => {
    const input = source([line(request(1)), "{oops\n", line(request(2))]);
    const output = sink();
    const stream = createMessageStream(input.stream, output.stream);
    expect(await readAll(stream.readable)).toEqual([request(1), request(2)]);
    await tick();
    expect(output.text()).toBe(`${PARSE_ERROR}\n`);
  });

  test("a batch gets one -32600 and is not processed", async () => {
    const input = source([`[${JSON.stringify(request(1))},${JSON.stringify(request(2))}]\n`, line(request(3))]);
    const output = sink();
    const stream = createMessageStream(input.stream, output.stream);
    expect(await readAll(stream.readable)).toEqual([request(3)]);
    await tick();
    expect(output.text()).toBe(`${BATCH_ERROR}\n`);
  });

  test("non-object values get -32600 with id null", async () => {
    const input = source(['{"jsonrpc":"2.0","method":"n"}\n42\n"s"\nnull\ntrue\n']);
    const output = sink();
    const stream = createMessageStream(input.stream, output.stream);
    expect(await readAll(stream.readable)).toEqual([{ jsonrpc: "2.0", method: "n" }]);
    await tick();
    expect(output.text()).toBe([nonObject("42"), nonObject('"s"'), nonObject("null"), nonObject("true"), ""].join("\n"));
  });

  test("an oversize message is answered and the stream goes on, in both framings", async () => {
    const big = JSON.stringify(request(9, "m", { pad: "x".repeat(2000) }));
    const ndjson = sink();
    const a = createMessageStream(source([line(request(1)), `${big}\n`, line(request(2))]).stream, ndjson.stream, { maxMessageBytes: 1024 });
    expect(await readAll(a.readable)).toEqual([request(1), request(2)]);

    const lsp = sink();
    const input = frame(JSON.stringify(request(1))) + frame(big) + frame(JSON.stringify(request(2)));
    const b = createMessageStream(source(bytewise(input)).stream, lsp.stream, { maxMessageBytes: 1024 });
    expect(await readAll(b.readable)).toEqual([request(1), request(2)]);

    await tick();
    expect(ndjson.text()).toBe(`${oversize(1024)}\n`);
    expect(lsp.text()).toBe(frame(oversize(1024)));
  });

  test("the default limit is stated as 16777216 bytes", async () => {
    const output = sink();
    const stream = createMessageStream(source([`Content-Length: ${16 * 1024 * 1024 + 1}\r\n\r\n`], true).stream, output.stream);
    const reader = stream.readable.getReader();
    void reader.read();
    await tick();
    expect(output.text()).toBe(frame(oversize(16777216)));
    await reader.cancel();
  });

  test("cancelling the readable cancels the input", async () => {
    const input = source([line(request(1))], true);
    const stream = createMessageStream(input.stream, sink().stream);
    const reader = stream.readable.getReader();
    expect((await reader.read()).value).toEqual(request(1));
    const pending = reader.read();
    await tick();
    await reader.cancel("bye");
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(input.state.cancelled).toBe(true);
    expect(await stream.closed).toEqual({ reason: "cancel" });
  });

  test("the input is read only as fast as messages are consumed", async () => {
    const input = source([line(request(1)), line(request(2)), line(request(3))], true);
    const stream = createMessageStream(input.stream, sink().stream);
    const reader = stream.readable.getReader();
    expect((await reader.read()).value).toEqual(request(1));
    await tick();
    expect(input.state.reads).toBeLessThanOrEqual(2);
    await reader.cancel();
  });
});

describe("createMessageStream: fatal framing errors", () => {
  test("a broken header errors the readable after the messages before it; nothing is written", async () => {
    const input = source([`${frame(JSON.stringify(request(1)))}Content-Lenght: 12\r\n\r\n{"id":12345}`], true);
    const output = sink();
    const stream = createMessageStream(input.stream, output.stream);
    const reader = stream.readable.getReader();
    expect((await reader.read()).value).toEqual(request(1));
    const error = await reader.read().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(FramingError);
    expect((error as Error).message).toBe('invalid Content-Length frame header: no Content-Length in "Content-Lenght: 12"');
    expect(await stream.closed).toEqual({ reason: "fatal", message: (error as Error).message });
    expect(input.state.cancelled).toBe(true);
    await tick();
    expect(output.chunks).toEqual([]);
  });

  test("an unrecognised first byte", async () => {
    const output = sink();
    const stream = createMessageStream(source(["hello\n"]).stream, output.stream);
    await expect(readAll(stream.readable)).rejects.toThrow('unrecognised framing: the first byte is "h" (0x68)');
    expect(await stream.closed).toMatchObject({ reason: "fatal" });
    await tick();
    expect(output.chunks).toEqual([]);
  });

  test("end of input inside a body", async () => {
    const stream = createMessageStream(source(["Content-Length: 10\r\n\r\n{}"]).stream, sink().stream);
    await expect(readAll(stream.readable)).rejects.toThrow("end of input in the middle of a Content-Length frame body (received 2 of 10 bytes)");
    expect(await stream.closed).toMatchObject({ reason: "fatal" });
  });
});

describe("createMessageStream: writing", () => {
  test("replies use the detected Content-Length framing", async () => {
    const body = JSON.stringify(request(1, "héllo 🌍"));
    const input = source(bytewise(frame("{oops") + frame(body)), true);
    const output = sink();
    const stream = createMessageStream(input.stream, output.stream);
    const reader = stream.readable.getReader();
    expect((await reader.read()).value).toEqual(request(1, "héllo 🌍"));
    expect(stream.framing()).toBe("content-length");
    const writer = stream.writable.getWriter();
    await writer.write({ jsonrpc: "2.0", id: 1, result: { text: "🌍" } });
    await tick();
    const reply = '{"jsonrpc":"2.0","id":1,"result":{"text":"🌍"}}';
    expect(output.text()).toBe(frame(PARSE_ERROR) + frame(reply));
    expect(output.text()).toContain(`Content-Length: ${reply.length + 2}\r\n\r\n`);
    await reader.cancel();
  });

  test("NDJSON is used before any framing is detected", async () => {
    const output = sink();
    const stream = createMessageStream(source([], true).stream, output.stream);
    const writer = stream.writable.getWriter();
    await writer.write(request(7));
    await tick();
    expect(stream.framing()).toBeUndefined();
    expect(output.text()).toBe(line(request(7)));
  });

  test("messages written in one tick leave in one write", async () => {
    const output = sink();
    const stream = createMessageStream(source([], true).stream, output.stream);
    const writer = stream.writable.getWriter();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) writes.push(writer.write(request(i)));
    await Promise.all(writes);
    await tick();
    expect(output.chunks.length).toBe(1);
    expect(output.text()).toBe(Array.from({ length: 100 }, (_, i) => line(request(i))).join(""));
  });

  test("writes serialized the SDK way (each awaited) are still coalesced", async () => {
    const output = sink();
    const stream = createMessageStream(source([], true).stream, output.stream);
    let queue = Promise.resolve();
    const send = (message: JsonRpcObject) => {
      queue = queue.then(async () => {
        const writer = stream.writable.getWriter();
        try {
          await writer.write(message);
        } finally {
          writer.releaseLock();
        }
      });
      return queue;
    };
    for (let i = 0; i < 50; i++) void send(request(i));
    await queue;
    await tick();
    expect(output.chunks.length).toBe(1);
    expect(output.text()).toBe(Array.from({ length: 50 }, (_, i) => line(request(i))).join(""));
  });

  test("messages a few dozen microtasks apart in one task (a model stream's deltas) share a write", async () => {
    const output = sink();
    const stream = createMessageStream(source([], true).stream, output.stream);
    const writer = stream.writable.getWriter();
    for (let i = 0; i < 30; i++) {
      void writer.write(request(i));
      // What a delta passes through between two messages: stream transforms, async generators, awaits.
      for (let hop = 0; hop < 40; hop++) await Promise.resolve();
    }
    await tick();
    expect(output.chunks.length).toBe(1);
    expect(output.text()).toBe(Array.from({ length: 30 }, (_, i) => line(request(i))).join(""));
  });

  test("writes never overlap and keep their order across ticks", async () => {
    const output = sink(() => new Promise((resolve) => setTimeout(resolve, 3)));
    const stream = createMessageStream(source([], true).stream, output.stream);
    const writer = stream.writable.getWriter();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 10; i++) void writer.write(request(round * 10 + i));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await writer.close();
    expect(output.state.maxActive).toBe(1);
    expect(output.chunks.length).toBeGreaterThan(1);
    expect(output.text()).toBe(Array.from({ length: 50 }, (_, i) => line(request(i))).join(""));
    expect(output.state.closed).toBe(true);
  });

  test("closing the writable flushes everything, then closes the output", async () => {
    const output = sink();
    const stream = createMessageStream(source([], true).stream, output.stream);
    const writer = stream.writable.getWriter();
    void writer.write(request(1));
    void writer.write(request(2));
    await writer.close();
    expect(output.text()).toBe(line(request(1)) + line(request(2)));
    expect(output.state.closed).toBe(true);
  });

  /** A message stream whose output accepts nothing until `release` is called. */
  function gatedStream() {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const output = sink(() => gate);
    const stream = createMessageStream(source([], true).stream, output.stream);
    return { release, output, stream, writer: stream.writable.getWriter() };
  }

  test("a large backlog makes writers wait for the output", async () => {
    const { release, output, stream, writer } = gatedStream();
    await writer.write(request(1)); // small: accepted at once
    await tick(); // now in flight, blocked on the gate
    let done = false;
    const big = writer.write(request(2, "m", { pad: "x".repeat(2 * 1024 * 1024) })).then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    release();
    await big;
    expect(done).toBe(true);
    expect(output.chunks.length).toBe(2);
  });

  test("serialised text goes out in order after what the writable passed on, and waits only when backed up", async () => {
    const { release, output, stream, writer } = gatedStream();
    await writer.write(request(1));
    expect(stream.sendSerialised(JSON.stringify(request(2)))).toBeUndefined();
    await tick(); // the first batch is in flight, blocked on the gate
    const backedUp = stream.sendSerialised(JSON.stringify(request(3, "m", { pad: "x".repeat(2 * 1024 * 1024) })));
    expect(backedUp).toBeInstanceOf(Promise);
    let done = false;
    void backedUp!.then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    release();
    await backedUp;
    await writer.close();
    expect(output.text().split("\n").slice(0, 2)).toEqual([JSON.stringify(request(1)), JSON.stringify(request(2))]);
    expect(JSON.parse(output.text().split("\n")[2]!).id).toBe(3);
  });

  test("serialised text is refused at once after the output failed", async () => {
    const output = new WritableStream<Uint8Array>({
      write() {
        throw new Error("EPIPE");
      },
    });
    const stream = createMessageStream(source([], true).stream, output);
    stream.sendSerialised(JSON.stringify(request(1)));
    await tick();
    expect(() => stream.sendSerialised(JSON.stringify(request(2)))).toThrow("EPIPE");
  });

  test("an output failure errors the writable", async () => {
    const output = new WritableStream<Uint8Array>({
      write() {
        throw new Error("EPIPE");
      },
    });
    const stream = createMessageStream(source([], true).stream, output);
    const writer = stream.writable.getWriter();
    await writer.write(request(1));
    await tick();
    await expect(writer.write(request(2))).rejects.toThrow("EPIPE");
  });
});
