import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createAiSdkModel } from "../../src/models/ai-sdk.ts";
import {
  type AssistantMessage,
  ModelError,
  type ModelEvent,
  type ModelInfo,
  type ModelMessage,
  type ProviderApi,
  type ProviderEndpoint,
  type ThinkingLevel,
  type ToolSpec,
} from "../../src/models/types.ts";
import { type FakeModelServer, type ScriptedTurn, startFakeModelServer } from "../helpers/fake-model-server.ts";

const SECRET = "sk-test-secret-abcdef0123456789";
/** A 1×1 transparent PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const READ_TOOL: ToolSpec = {
  name: "read",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" }, limit: { type: "number" } }, required: ["path"] },
};

const cases: Array<{ api: ProviderApi; provider: string; path: string }> = [
  { api: "anthropic", provider: "anthropic", path: "/v1/messages" },
  { api: "openai", provider: "openai", path: "/v1/responses" },
  { api: "openai-compatible", provider: "local", path: "/v1/chat/completions" },
];

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Rebuilds the assistant message the way the engine does: one part per block, provider data merged. */
function assemble(events: ModelEvent[], model: string): AssistantMessage {
  const message: AssistantMessage = { role: "assistant", content: [], model };
  const blocks = new Map<string, AssistantMessage["content"][number]>();
  for (const event of events) {
    if (event.type === "text" || event.type === "thinking") {
      const key = `${event.type}:${event.block}`;
      let part = blocks.get(key);
      if (!part) {
        part = event.type === "text" ? { type: "text", text: "" } : { type: "thinking", text: "" };
        blocks.set(key, part);
        message.content.push(part);
      }
      if (part.type === "text" || part.type === "thinking") part.text += event.text;
      if (event.type === "thinking" && part.type === "thinking" && event.providerData) {
        const merged = { ...part.providerData };
        for (const [ns, data] of Object.entries(event.providerData)) merged[ns] = { ...merged[ns], ...data };
        part.providerData = merged;
      }
    } else if (event.type === "tool_call") {
      message.content.push({ type: "tool_call", id: event.id, name: event.name, input: event.input, ...(event.providerData ? { providerData: event.providerData } : {}) });
    }
  }
  return message;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return check();
}

const user = (text: string): ModelMessage => ({ role: "user", content: [{ type: "text", text }] });

describe.each(cases)("createAiSdkModel over $api", ({ api, provider, path }) => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await startFakeModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const info = (overrides: Partial<ModelInfo> = {}): ModelInfo => ({
    provider,
    id: "fake-model",
    name: "Fake model",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    reasoning: true,
    input: ["text", "image"],
    ...overrides,
  });
  const endpoint = (overrides: Partial<ProviderEndpoint> = {}): ProviderEndpoint => ({
    provider,
    api,
    baseUrl: `${server.url}/v1`,
    apiKey: SECRET,
    maxRetries: 0,
    ...overrides,
  });
  const run = (
    messages: ModelMessage[],
    opts: { thinking?: ThinkingLevel; info?: Partial<ModelInfo>; endpoint?: Partial<ProviderEndpoint>; signal?: AbortSignal } = {},
  ) =>
    createAiSdkModel(info(opts.info), endpoint(opts.endpoint)).stream({
      system: "You are a test.",
      messages,
      tools: [READ_TOOL],
      thinking: opts.thinking ?? "medium",
      signal: opts.signal ?? new AbortController().signal,
    });
  const push = (...turns: ScriptedTurn[]) => server.push(...turns);
  const lastBody = () => server.requests.at(-1)?.body;

  test("streams thinking then text as deltas with stable block ids", async () => {
    push({ thinking: "Pondering the question.", text: "Hello from the fake model." });
    const events = await collect(run([user("hi")]));

    const thinking = events.filter((e) => e.type === "thinking");
    const text = events.filter((e) => e.type === "text");
    expect(thinking.map((e) => e.text).join("")).toBe("Pondering the question.");
    expect(text.map((e) => e.text).join("")).toBe("Hello from the fake model.");
    expect(text.length).toBeGreaterThan(1);
    expect(new Set(thinking.map((e) => e.block)).size).toBe(1);
    expect(new Set(text.map((e) => e.block)).size).toBe(1);
    const lastThought = events.findLastIndex((e) => e.type === "thinking" && e.text !== "");
    expect(lastThought).toBeLessThan(events.findIndex((e) => e.type === "text"));
    expect(events.filter((e) => e.type === "finish")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "finish", cause: "stop" });
    expect(server.requests[0]?.path).toBe(path);

    const data = assemble(events, `${provider}/fake-model`).content.find((p) => p.type === "thinking")?.providerData;
    if (api === "anthropic") expect(data).toEqual({ anthropic: { signature: "fake-signature-1" } });
    if (api === "openai") expect(data?.openai).toMatchObject({ itemId: "rs_fake_1", reasoningEncryptedContent: "fake-encrypted-1" });
    if (api === "openai-compatible") expect(data).toBeUndefined();
  });

  test("sends the key, custom headers and the system prompt", async () => {
    push({ text: "ok" });
    await collect(run([user("hi")], { endpoint: { headers: { "x-team": "blue" } } }));
    const request = server.requests[0]!;
    expect(request.headers["x-team"]).toBe("blue");
    if (api === "anthropic") {
      expect(request.headers["x-api-key"]).toBe(SECRET);
      // Cached by default: the system prompt is one of the request's cache breakpoints.
      expect(request.body.system).toEqual([{ type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } }]);
      expect(request.body.messages.some((m: { role: string }) => m.role === "system")).toBe(false);
    } else {
      expect(request.headers.authorization).toBe(`Bearer ${SECRET}`);
      const list = api === "openai" ? request.body.input : request.body.messages;
      expect(list[0]).toMatchObject({ content: "You are a test." });
      expect(list.filter((m: { content: unknown }) => m.content === "You are a test.")).toHaveLength(1);
    }
  });

  test("a tool call arrives parsed and its result goes back on the next request", async () => {
    const input = { path: "src/a.ts", limit: 10 };
    push({ thinking: "I need the file.", toolCalls: [{ id: "call_1", name: "read", input }] }, { text: "Done." });
    const first = await collect(run([user("read it")]));
    const call = first.find((e) => e.type === "tool_call");
    expect(call).toMatchObject({ type: "tool_call", id: "call_1", name: "read", input });
    expect(first.at(-1)).toMatchObject({ type: "finish", cause: "tool_calls" });

    const assistant = assemble(first, `${provider}/fake-model`);
    const second = await collect(
      run([
        user("read it"),
        assistant,
        { role: "tool", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: "file contents" }], isError: false },
      ]),
    );
    expect(second.at(-1)).toMatchObject({ type: "finish", cause: "stop" });
    const body = server.requests[1]!.body;
    if (api === "anthropic") {
      expect(body.messages).toMatchObject([
        { role: "user", content: [{ type: "text", text: "read it" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "I need the file.", signature: "fake-signature-1" },
            { type: "tool_use", id: "call_1", name: "read", input },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "file contents" }] },
      ]);
    } else if (api === "openai") {
      expect(body.input.slice(1)).toMatchObject([
        { role: "user", content: [{ type: "input_text", text: "read it" }] },
        { type: "reasoning", id: "rs_fake_1", encrypted_content: "fake-encrypted-1", summary: [{ type: "summary_text", text: "I need the file." }] },
        { type: "function_call", call_id: "call_1", name: "read" },
        { type: "function_call_output", call_id: "call_1", output: "file contents" },
      ]);
      expect(JSON.parse(body.input[3].arguments)).toEqual(input);
    } else {
      expect(body.messages.slice(1)).toMatchObject([
        { role: "user", content: "read it" },
        { role: "assistant", reasoning_content: "I need the file.", tool_calls: [{ id: "call_1", type: "function", function: { name: "read" } }] },
        { role: "tool", tool_call_id: "call_1", content: "file contents" },
      ]);
      expect(JSON.parse(body.messages[2].tool_calls[0].function.arguments)).toEqual(input);
    }
  });

  test("consecutive tool results, an error result and a tool image are sent correctly", async () => {
    push({ text: "ok" });
    const assistant: AssistantMessage = {
      role: "assistant",
      model: `${provider}/fake-model`,
      content: [
        { type: "tool_call", id: "call_a", name: "read", input: { path: "a" } },
        { type: "tool_call", id: "call_b", name: "read", input: { path: "b" } },
      ],
    };
    await collect(
      run([
        user("go"),
        assistant,
        { role: "tool", toolCallId: "call_a", toolName: "read", content: [{ type: "text", text: "no such file" }], isError: true },
        {
          role: "tool",
          toolCallId: "call_b",
          toolName: "read",
          content: [{ type: "text", text: "an image" }, { type: "image", data: PNG, mimeType: "image/png" }],
          isError: false,
        },
      ]),
    );
    const body = lastBody();
    if (api === "anthropic") {
      expect(body.messages).toHaveLength(3);
      expect(body.messages[2].content).toMatchObject([
        { type: "tool_result", tool_use_id: "call_a", is_error: true, content: "no such file" },
        {
          type: "tool_result",
          tool_use_id: "call_b",
          content: [{ type: "text", text: "an image" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }],
        },
      ]);
    } else if (api === "openai") {
      const outputs = body.input.filter((i: { type?: string }) => i.type === "function_call_output");
      expect(outputs).toMatchObject([
        { call_id: "call_a", output: "no such file" },
        { call_id: "call_b", output: [{ type: "input_text", text: "an image" }, { type: "input_image", image_url: `data:image/png;base64,${PNG}` }] },
      ]);
    } else {
      expect(body.messages.slice(3)).toMatchObject([
        { role: "tool", tool_call_id: "call_a", content: "no such file" },
        { role: "tool", tool_call_id: "call_b", content: "an image" },
        { role: "user", content: [{ type: "text" }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }] },
      ]);
    }
  });

  test("a message from another provider sends no provider data back", async () => {
    const history = (model: string): ModelMessage[] => [
      user("first"),
      {
        role: "assistant",
        model,
        content: [
          {
            type: "thinking",
            text: "hidden reasoning",
            providerData: { anthropic: { signature: "sig-foreign" }, openai: { itemId: "rs_foreign", reasoningEncryptedContent: "enc-foreign" } },
          },
          { type: "text", text: "Earlier answer." },
          { type: "tool_call", id: "call_9", name: "read", input: { path: "x" }, providerData: { openai: { itemId: "fc_foreign" } } },
        ],
      },
      { role: "tool", toolCallId: "call_9", toolName: "read", content: [{ type: "text", text: "x contents" }], isError: false },
      user("next"),
    ];
    push({ text: "ok" }, { text: "ok" });

    await collect(run(history("elsewhere/other-model")));
    const foreign = JSON.stringify(server.requests[0]!.body);
    for (const leaked of ["sig-foreign", "rs_foreign", "enc-foreign", "fc_foreign", "hidden reasoning"]) {
      expect(foreign).not.toContain(leaked);
    }
    expect(foreign).toContain("Earlier answer.");
    expect(foreign).toContain("call_9");

    await collect(run(history(`${provider}/fake-model`)));
    const own = JSON.stringify(server.requests[1]!.body);
    expect(own).toContain("hidden reasoning");
    if (api === "anthropic") expect(own).toContain("sig-foreign");
    if (api === "openai") expect(own).toContain("enc-foreign");
  });

  test("maps usage, with cached input split out", async () => {
    push({ text: "hi", usage: { input: 1200, output: 345, cacheRead: 800, cacheWrite: 100 } });
    const events = await collect(run([user("hi")]));
    // Chat completions has no cache-write count.
    expect(events.at(-1)).toEqual({
      type: "finish",
      cause: "stop",
      usage: { input: 1200, output: 345, cacheRead: 800, cacheWrite: api === "openai-compatible" ? 0 : 100 },
    });
  });

  test("a retryable status before the stream is retried, after the wait the server asks for", async () => {
    push({ error: { status: 429, message: "slow down", retryAfterMs: 5 } }, { error: { status: 503, message: "busy", retryAfterMs: 5 } }, { text: "third time lucky" });
    const events = await collect(run([user("hi")], { endpoint: { maxRetries: 2 } }));
    expect(events.filter((e) => e.type === "text").map((e) => e.text).join("")).toBe("third time lucky");
    expect(server.requests).toHaveLength(3);
    // Each attempt sends the same request.
    expect(server.requests[2]!.body).toEqual(server.requests[0]!.body);
  });

  test("retries stop at maxRetries and report the last error; a client error is not retried", async () => {
    push({ error: { status: 503, message: "busy", retryAfterMs: 1 } }, { error: { status: 529, message: "still busy", retryAfterMs: 1 } });
    const exhausted = await collect(run([user("hi")], { endpoint: { maxRetries: 1 } })).catch((error: unknown) => error);
    expect(exhausted).toBeInstanceOf(ModelError);
    expect((exhausted as ModelError).status).toBe(529);
    expect((exhausted as ModelError).message).toContain("still busy");
    expect(server.requests).toHaveLength(2);

    push({ error: { status: 400, message: "bad request", retryAfterMs: 1 } }, { text: "never sent" });
    const rejected = await collect(run([user("hi")], { endpoint: { maxRetries: 3 } })).catch((error: unknown) => error);
    expect((rejected as ModelError).status).toBe(400);
    expect(server.requests).toHaveLength(3);
  });

  test("an abort during the wait before a retry ends the request at once", async () => {
    push({ error: { status: 503, message: "busy", retryAfterMs: 30_000 } }, { text: "too late" });
    const controller = new AbortController();
    const reason = new Error("stop waiting");
    const pending = collect(run([user("hi")], { endpoint: { maxRetries: 2 }, signal: controller.signal })).catch((error: unknown) => error);
    expect(await waitFor(() => server.requests.length === 1, 2000)).toBe(true);
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  test("tool-call arguments that are not JSON arrive as their raw text, empty arguments as {}", async () => {
    push({
      toolCalls: [
        { id: "call_bad", name: "read", input: undefined, rawInput: '{"path": "a.ts"' },
        { id: "call_empty", name: "read", input: undefined, rawInput: "" },
      ],
    });
    const events = await collect(run([user("read")]));
    const calls = events.filter((e) => e.type === "tool_call");
    expect(calls).toMatchObject([
      { id: "call_bad", name: "read", input: '{"path": "a.ts"' },
      { id: "call_empty", name: "read", input: {} },
    ]);
  });

  test("a conversation of several tool rounds replays every thinking block and result in order", async () => {
    push(
      { thinking: "First I read a.", toolCalls: [{ id: "call_1", name: "read", input: { path: "a" } }] },
      { thinking: "Now b.", toolCalls: [{ id: "call_2", name: "read", input: { path: "b" } }] },
      { text: "Both read." },
    );
    const model = `${provider}/fake-model`;
    const history: ModelMessage[] = [user("read a and b")];
    for (const [id, result] of [["call_1", "A"], ["call_2", "B"]] as const) {
      history.push(assemble(await collect(run(history)), model));
      history.push({ role: "tool", toolCallId: id, toolName: "read", content: [{ type: "text", text: result }], isError: false });
    }
    const last = await collect(run(history));
    expect(last.at(-1)).toMatchObject({ type: "finish", cause: "stop" });
    const body = server.requests[2]!.body;
    if (api === "anthropic") {
      expect(body.messages).toMatchObject([
        { role: "user" },
        { role: "assistant", content: [{ type: "thinking", thinking: "First I read a.", signature: "fake-signature-1" }, { type: "tool_use", id: "call_1", input: { path: "a" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "A" }] },
        { role: "assistant", content: [{ type: "thinking", thinking: "Now b.", signature: "fake-signature-2" }, { type: "tool_use", id: "call_2", input: { path: "b" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_2", content: "B" }] },
      ]);
    } else if (api === "openai") {
      expect(body.input.slice(1)).toMatchObject([
        { role: "user" },
        { type: "reasoning", id: "rs_fake_1", encrypted_content: "fake-encrypted-1", summary: [{ text: "First I read a." }] },
        { type: "function_call", call_id: "call_1" },
        { type: "function_call_output", call_id: "call_1", output: "A" },
        { type: "reasoning", id: "rs_fake_2", encrypted_content: "fake-encrypted-2", summary: [{ text: "Now b." }] },
        { type: "function_call", call_id: "call_2" },
        { type: "function_call_output", call_id: "call_2", output: "B" },
      ]);
    } else {
      expect(body.messages.slice(1)).toMatchObject([
        { role: "user" },
        { role: "assistant", reasoning_content: "First I read a.", tool_calls: [{ id: "call_1" }] },
        { role: "tool", tool_call_id: "call_1", content: "A" },
        { role: "assistant", reasoning_content: "Now b.", tool_calls: [{ id: "call_2" }] },
        { role: "tool", tool_call_id: "call_2", content: "B" },
      ]);
    }
  });

  test("max tokens ends with cause length, a refusal with cause refusal", async () => {
    push({ text: "cut off mid", stop: "max_tokens" }, { text: "I can't help with that.", stop: "refusal" });
    expect((await collect(run([user("long")]))).at(-1)).toMatchObject({ type: "finish", cause: "length" });
    const refused = await collect(run([user("bad")]));
    expect(refused.at(-1)).toMatchObject({ type: "finish", cause: "refusal" });
  });

  test.each([
    [401, "invalid api key given"],
    [500, "model crashed"],
  ])("HTTP %d becomes a ModelError with the provider's message", async (status, message) => {
    push({ error: { status, message } });
    const error = await collect(run([user("hi")])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    const modelError = error as ModelError;
    expect(modelError.status).toBe(status);
    expect(modelError.message).toBe(`${provider}: HTTP ${status} — ${message}`);
    expect(modelError.message).not.toContain(SECRET);
  });

  test("a key where the provider's message is cut is hidden before the cut", async () => {
    for (const lead of [280, 290, 298]) {
      push({ error: { status: 400, message: `${"m".repeat(lead)}${SECRET} tail` } });
      const error = await collect(run([user("hi")])).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect((error as Error).message).not.toContain(SECRET.slice(0, 8));
    }
  });

  test("an exhausted script is an HTTP 500 ModelError", async () => {
    const error = await collect(run([user("hi")])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toContain("no scripted turn left");
  });

  test("an unreachable server is a ModelError naming the URL", async () => {
    // A port that was just free; port 1 would be refused by fetch itself ("bad port") on Node.
    const gone = await startFakeModelServer();
    const baseUrl = `${gone.url}/v1`;
    await gone.close();
    const error = await collect(run([user("hi")], { endpoint: { baseUrl } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toBe(`${provider}: could not connect to ${baseUrl} (connection refused)`);
  });

  test("a connection dropped mid-stream is a ModelError", async () => {
    push({ text: "word ".repeat(100), chunkDelayMs: 5 });
    let seen = 0;
    const error = await (async () => {
      for await (const _ of run([user("talk")])) if (++seen === 3) void server.close();
    })().catch((e: unknown) => e);
    expect(seen).toBeGreaterThanOrEqual(3);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toStartWith(`${provider}: the response stream broke off (`);
  });

  test("aborting mid-stream rejects with the abort reason promptly and closes the connection", async () => {
    push({ text: "word ".repeat(100), chunkSize: 5, chunkDelayMs: 20 });
    const controller = new AbortController();
    const seen: ModelEvent[] = [];
    let abortedAt = 0;
    const error = await (async () => {
      for await (const event of run([user("talk")], { signal: controller.signal })) {
        seen.push(event);
        if (seen.length === 2) {
          abortedAt = Date.now();
          controller.abort();
        }
      }
    })().catch((e: unknown) => e);
    const elapsed = Date.now() - abortedAt;
    expect(seen).toHaveLength(2);
    expect(error).not.toBeInstanceOf(ModelError);
    expect((error as Error).name).toBe("AbortError");
    expect(elapsed).toBeLessThan(200);
    expect(await waitFor(() => server.abortedStreams === 1, 1000)).toBe(true);
  });

  test("an already aborted signal rejects without a request", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop now"));
    const error = await collect(run([user("hi")], { signal: controller.signal })).catch((e: unknown) => e);
    expect((error as Error).message).toBe("stop now");
    expect(server.requests).toHaveLength(0);
  });

  test("an image in a user message is sent as an image", async () => {
    push({ text: "A pixel." });
    await collect(
      run([{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image", data: PNG, mimeType: "image/png" }] }]),
    );
    const body = lastBody();
    if (api === "anthropic") {
      expect(body.messages[0].content).toMatchObject([
        { type: "text", text: "What is this?" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ]);
    } else if (api === "openai") {
      expect(body.input[1].content).toMatchObject([
        { type: "input_text", text: "What is this?" },
        { type: "input_image", image_url: `data:image/png;base64,${PNG}` },
      ]);
    } else {
      expect(body.messages[1].content).toMatchObject([
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ]);
    }
  });

  test("thinking options are sent only for reasoning models with thinking on", async () => {
    push({ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" });
    await collect(run([user("hi")], { thinking: "high" }));
    await collect(run([user("hi")], { thinking: "off" }));
    await collect(run([user("hi")], { thinking: "high", info: { reasoning: false } }));
    await collect(run([user("hi")], { thinking: "xhigh", info: { maxOutputTokens: 8000 } }));
    const [on, off, plain, small] = server.requests.map((r) => r.body);
    if (api === "anthropic") {
      expect(on.thinking).toEqual({ type: "enabled", budget_tokens: 16384 });
      expect(on.max_tokens).toBe(32768);
      expect(off.thinking).toBeUndefined();
      expect(plain.thinking).toBeUndefined();
      expect(off.max_tokens).toBe(32000);
      expect(small.max_tokens).toBe(8000);
      expect(small.thinking.budget_tokens).toBeLessThan(8000);
    } else if (api === "openai") {
      expect(on.reasoning).toEqual({ effort: "high", summary: "auto" });
      expect(off.reasoning).toBeUndefined();
      expect(plain.reasoning).toBeUndefined();
      expect(small.reasoning).toEqual({ effort: "high", summary: "auto" });
      expect(small.max_output_tokens).toBe(8000);
    } else {
      expect(on.reasoning_effort).toBe("high");
      expect(off.reasoning_effort).toBeUndefined();
      expect(plain.reasoning_effort).toBeUndefined();
      expect(small.reasoning_effort).toBe("high");
      expect(small.max_tokens).toBe(8000);
    }
  });
});

describe("createAiSdkModel credentials", () => {
  test("never falls back to API keys from the environment", async () => {
    const server = await startFakeModelServer([{ text: "a" }, { text: "b" }]);
    const saved = { a: process.env.ANTHROPIC_API_KEY, o: process.env.OPENAI_API_KEY };
    process.env.ANTHROPIC_API_KEY = "env-anthropic-key-should-not-be-sent";
    process.env.OPENAI_API_KEY = "env-openai-key-should-not-be-sent";
    try {
      for (const api of ["anthropic", "openai"] as const) {
        const model = createAiSdkModel(
          { provider: api, id: "fake-model", name: "Fake", contextWindow: 1000, maxOutputTokens: 1000, reasoning: false, input: ["text"] },
          { provider: api, api, baseUrl: `${server.url}/v1`, maxRetries: 0 },
        );
        await collect(model.stream({ system: "", messages: [user("hi")], tools: [], thinking: "off", signal: new AbortController().signal }));
      }
      const sent = JSON.stringify(server.requests.map((r) => r.headers));
      expect(server.requests).toHaveLength(2);
      expect(sent).not.toContain("should-not-be-sent");
    } finally {
      if (saved.a === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved.a;
      if (saved.o === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved.o;
      await server.close();
    }
  });
});
