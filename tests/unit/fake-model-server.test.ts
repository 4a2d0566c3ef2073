import { afterEach, describe, expect, test } from "bun:test";
import { type FakeModelServer, startFakeModelServer } from "../helpers/fake-model-server.ts";

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${server!.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), ...init });

/** Splits an SSE body into its frames: `{ event?, data }`. */
function frames(text: string): Array<{ event?: string; data: string }> {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((l) => l.startsWith("event: "))?.slice(7);
      const data = lines.find((l) => l.startsWith("data: "))?.slice(6) ?? "";
      return event ? { event, data } : { data };
    });
}

describe("fake model server", () => {
  test("records method, path, lower-cased headers and the parsed body of every request", async () => {
    server = await startFakeModelServer([{ text: "hi" }]);
    await (await post("/v1/messages", { model: "m", n: 1 }, { headers: { "X-Api-Key": "k1", "content-type": "application/json" } })).text();
    const notFound = await fetch(`${server.url}/v1/models`);
    expect(notFound.status).toBe(404);
    await notFound.text();
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/v1/messages", body: { model: "m", n: 1 } });
    expect(server.requests[0]!.headers["x-api-key"]).toBe("k1");
    expect(server.requests[1]).toMatchObject({ method: "GET", path: "/v1/models" });
  });

  test("anthropic frames carry event names matching their type and a signature after the thinking", async () => {
    server = await startFakeModelServer([{ thinking: "hmm", text: "hello", toolCalls: [{ name: "ls", input: { path: "." } }] }]);
    const list = frames(await (await post("/v1/messages", { model: "m" })).text());
    for (const frame of list) expect(JSON.parse(frame.data).type).toBe(frame.event!);
    const types = list.map((f) => JSON.parse(f.data).delta?.type ?? f.event);
    expect(types[0]).toBe("message_start");
    expect(types.indexOf("signature_delta")).toBeGreaterThan(types.lastIndexOf("thinking_delta"));
    expect(types.indexOf("input_json_delta")).toBeGreaterThan(types.lastIndexOf("text_delta"));
    const delta = list.map((f) => JSON.parse(f.data)).find((d) => d.type === "message_delta");
    expect(delta.delta.stop_reason).toBe("tool_use");
    expect(types.at(-1)).toBe("message_stop");
  });

  test("chat completions end with a finish chunk, a usage chunk and [DONE]", async () => {
    server = await startFakeModelServer([{ text: "hello world", usage: { input: 7, output: 3 }, stop: "max_tokens" }]);
    const list = frames(await (await post("/v1/chat/completions", { model: "m" })).text());
    expect(list.at(-1)).toEqual({ data: "[DONE]" });
    const chunks = list.slice(0, -1).map((f) => JSON.parse(f.data));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("hello world");
    expect(chunks.at(-2).choices[0].finish_reason).toBe("length");
    expect(chunks.at(-1).usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
  });

  test("scripted errors and an exhausted script answer with the provider's error JSON", async () => {
    server = await startFakeModelServer([{ error: { status: 429, message: "slow down" } }]);
    const limited = await post("/v1/responses", { model: "m" });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ error: { message: "slow down" } });
    const exhausted = await post("/v1/messages", { model: "m" });
    expect(exhausted.status).toBe(500);
    expect(await exhausted.json()).toEqual({
      type: "error",
      error: { type: "api_error", message: "fake model server: no scripted turn left" },
    });
  });

  test("push appends turns after the initial script", async () => {
    server = await startFakeModelServer([{ text: "one" }]);
    server.push({ text: "two" });
    const texts: string[] = [];
    for (let i = 0; i < 2; i++) {
      const list = frames(await (await post("/v1/chat/completions", { model: "m" })).text());
      texts.push(list.slice(0, -1).map((f) => JSON.parse(f.data).choices[0]?.delta?.content ?? "").join(""));
    }
    expect(texts).toEqual(["one", "two"]);
  });

  test("counts a stream the client abandons, and close() does not wait for open streams", async () => {
    server = await startFakeModelServer([{ text: "x".repeat(200), chunkSize: 1, chunkDelayMs: 10 }, { text: "y".repeat(200), chunkDelayMs: 50 }]);
    const controller = new AbortController();
    const response = await post("/v1/messages", { model: "m" }, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.read().catch(() => {});
    const until = Date.now() + 1000;
    while (server.abortedStreams === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    expect(server.abortedStreams).toBe(1);

    const open = await post("/v1/messages", { model: "m" });
    const pending = open.text().catch(() => "closed");
    const started = Date.now();
    await server.close();
    server = undefined;
    await pending;
    expect(Date.now() - started).toBeLessThan(500);
  });
});
