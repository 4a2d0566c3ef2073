/**
 * Run under Node by tests/unit/node-fetch.test.ts (bundled with esbuild):
 * performs one scenario with `nodeFetch`, or with the whole model client,
 * against servers the test started, and prints what it saw as one JSON line.
 * Usage: node probe.mjs '<scenario as JSON>'
 */
import { createAiSdkModel } from "../../src/models/ai-sdk.ts";
import type { ModelMessage } from "../../src/models/types.ts";
import { nodeFetch } from "../../src/runtime/node-fetch.ts";

type Scenario = { name: string; url: string; release?: string; init?: { method?: string; headers?: Record<string, string>; body?: string; bytes?: boolean } };

function describeError(error: unknown): { name?: string; message?: string; codes: string[] } {
  const codes: string[] = [];
  for (let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; current && depth < 8; current = current.cause as typeof current, depth++) {
    if (typeof current.code === "string") codes.push(current.code);
  }
  const named = error as { name?: string; message?: string };
  return { name: named?.name, message: named?.message, codes };
}

async function readAll(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return "";
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
  return text;
}

async function run(scenario: Scenario): Promise<unknown> {
  const init = scenario.init ?? {};
  const body = init.bytes && init.body !== undefined ? new TextEncoder().encode(init.body) : init.body;
  switch (scenario.name) {
    case "fetch": {
      const response = await nodeFetch(scenario.url, { method: init.method, headers: init.headers, body } as never);
      const text = await response.text();
      return { ok: response.ok, status: response.status, statusText: response.statusText, headers: Object.fromEntries([...response.headers]), text, bodyNull: response.body === null };
    }
    case "stream-then-release": {
      // Reads the first chunk, asks the server to finish, reads the rest: a buffered body would never get here.
      const response = await nodeFetch(scenario.url, { method: "POST", body: "{}" });
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      await (await nodeFetch(scenario.release!, {})).text();
      let rest = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      return { first, rest };
    }
    case "refused":
    case "dropped": {
      try {
        const response = await nodeFetch(scenario.url, { method: "POST", body: "{}" });
        await readAll(response.body);
        return { error: null };
      } catch (error) {
        return { error: describeError(error) };
      }
    }
    case "abort-before": {
      const controller = new AbortController();
      controller.abort();
      try {
        await nodeFetch(scenario.url, { signal: controller.signal });
        return { error: null };
      } catch (error) {
        return { error: describeError(error) };
      }
    }
    case "abort-with-reason": {
      const controller = new AbortController();
      const pending = nodeFetch(scenario.url, { method: "POST", body: "{}", signal: controller.signal });
      controller.abort(new Error("the turn was cancelled"));
      try {
        await pending;
        return { error: null };
      } catch (error) {
        return { error: describeError(error) };
      }
    }
    case "abort-mid-body": {
      const controller = new AbortController();
      const response = await nodeFetch(scenario.url, { method: "POST", body: "{}", signal: controller.signal });
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      try {
        for (;;) if ((await reader.read()).done) break;
        return { first, error: null };
      } catch (error) {
        return { first, error: describeError(error) };
      }
    }
    case "model-turn": {
      // The whole model client on Node (its default fetch is nodeFetch): the text, or the error it reports.
      const model = createAiSdkModel(
        { provider: "anthropic", id: "fake-model", name: "Fake model", contextWindow: 200_000, maxOutputTokens: 1000, reasoning: false, input: ["text"] },
        { provider: "anthropic", api: "anthropic", baseUrl: scenario.url, apiKey: "sk-ant-probe-key-0000", maxRetries: 0 },
      );
      const messages: ModelMessage[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
      let text = "";
      try {
        for await (const event of model.stream({ system: "You are a test.", messages, tools: [], thinking: "off", signal: new AbortController().signal })) {
          if (event.type === "text") text += event.text;
        }
        return { text };
      } catch (error) {
        return { text, error: describeError(error) };
      }
    }
  }
  throw new Error(`unknown scenario ${scenario.name}`);
}

console.log(JSON.stringify(await run(JSON.parse(process.argv[2]!) as Scenario)));
