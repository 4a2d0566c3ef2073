/**
 * `ModelClient.prepare`: the warm-up before a session's first prompt. It
 * rehearses one reply per wire protocol without any request to the
 * provider, the rehearsal replies are well-formed for the real SDK, and a
 * turn during or after it streams as usual.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import { createAiSdkModel } from "../../src/models/ai-sdk.ts";
import { rehearsalFetch } from "../../src/models/ai-sdk-rehearsal.ts";
import type { ModelEvent, ModelInfo, ProviderApi } from "../../src/models/types.ts";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.ts";

const cases: Array<{ api: ProviderApi; provider: string }> = [
  { api: "anthropic", provider: "anthropic" },
  { api: "openai", provider: "openai" },
  { api: "openai-compatible", provider: "local" },
];

const info = (provider: string): ModelInfo => ({
  provider,
  id: "fake-model",
  name: "Fake model",
  contextWindow: 200_000,
  maxOutputTokens: 64_000,
  reasoning: false,
  input: ["text"],
});

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const ask = (text: string) => ({
  system: "You are a test.",
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text }] }],
  tools: [],
  thinking: "off" as const,
  signal: new AbortController().signal,
});

describe.each(cases)("prepare over $api", ({ api, provider }) => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await startFakeModelServer();
  });
  afterEach(async () => {
    await server.close();
  });
  const client = () => createAiSdkModel(info(provider), { provider, api, baseUrl: `${server.url}/v1`, apiKey: "sk-test-prepare-0123456789", maxRetries: 0 });

  test("sends nothing to the provider, and a turn after it streams as usual", async () => {
    const model = client();
    expect(model.prepare).toBeFunction();
    await model.prepare!();
    await model.prepare!();
    expect(server.requests).toHaveLength(0);
    server.push({ text: "hello after the warm-up" });
    const events = await collect(model.stream(ask("hi")));
    expect(events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text).join("")).toBe("hello after the warm-up");
    expect(server.requests).toHaveLength(1);
  });

  test("a turn started while the warm-up runs streams its own reply", async () => {
    const model = client();
    server.push({ text: "mid warm-up" });
    const [events] = await Promise.all([collect(model.stream(ask("hi"))), model.prepare!()]);
    expect(events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text).join("")).toBe("mid warm-up");
    expect(events.at(-1)?.type).toBe("finish");
    expect(server.requests).toHaveLength(1);
  });

  test("the rehearsal reply is a complete stream for the real SDK", async () => {
    // Served over real HTTP, so the SDK parses it exactly as a provider's reply.
    const body = await (await rehearsalFetch(api)("http://rehearsal.invalid/v1", { method: "POST" })).text();
    const http: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const port = (http.address() as { port: number }).port;
      const model = createAiSdkModel(info(provider), { provider, api, baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: "sk-test-prepare-0123456789", maxRetries: 0 });
      const events = await collect(model.stream(ask("hi")));
      expect(events.filter((e) => e.type === "text").map((e) => (e as { text: string }).text).join("")).toBe("ok");
      expect(events.at(-1)).toMatchObject({ type: "finish", cause: "stop" });
    } finally {
      http.close();
    }
  });

  test("the rehearsal reply gives way: its frames come over many macrotasks, and an abort ends it with the abort's reason", async () => {
    // Other macrotasks (a client's request being read) keep running while the frames are produced.
    let finished = false;
    let ticks = 0;
    const tick = () => {
      ticks += 1;
      if (!finished) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const whole = (await rehearsalFetch(api)("http://rehearsal.invalid/v1", { method: "POST" })).body!.getReader();
    let frames = 0;
    while (!(await whole.read()).done) frames += 1;
    finished = true;
    expect(frames).toBeGreaterThan(3);
    expect(ticks).toBeGreaterThanOrEqual(frames - 1);

    const stop = new AbortController();
    const reader = (await rehearsalFetch(api)("http://rehearsal.invalid/v1", { method: "POST", signal: stop.signal })).body!.getReader();
    expect((await reader.read()).done).toBe(false);
    stop.abort(new Error("a real request started"));
    await expect(reader.read()).rejects.toThrow("a real request started");
  });
});
