/**
 * The one small request that checks a key, against the fake model server
 * over real HTTP: each way it can fail is named for what the person must fix,
 * and no verdict carries the key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { checkCredential } from "../../src/models/credential-check.ts";
import type { ProviderEndpoint } from "../../src/models/types.ts";
import { startFakeModelServer, type FakeModelServer } from "../helpers/fake-model-server.ts";

const KEY = "sk-check-key-0123456789abcdef";
let fake: FakeModelServer;
beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => await fake.close());

const endpoint = (api: ProviderEndpoint["api"], baseUrl: string): ProviderEndpoint => ({ provider: "p", api, baseUrl, apiKey: KEY, maxRetries: 0 });

describe("checkCredential", () => {
  test("a working key, on each wire API, with the key in the request", async () => {
    for (const api of ["anthropic", "openai", "openai-compatible"] as const) {
      fake.push({ text: "OK" });
      expect(await checkCredential(endpoint(api, `${fake.url}/v1`), "m")).toEqual({ ok: true });
      const headers = fake.requests.at(-1)!.headers;
      expect(headers["x-api-key"] ?? headers.authorization).toContain(KEY);
    }
  });

  test("refused, unknown model, wrong path, rate limited, server error", async () => {
    const cases: Array<[{ status: number; message: string }, string, ProviderEndpoint["api"], string]> = [
      [{ status: 401, message: "invalid x-api-key" }, "refused", "anthropic", "/v1"],
      [{ status: 403, message: "forbidden" }, "refused", "openai-compatible", "/v1"],
      [{ status: 404, message: "model: claude-nope" }, "unknown_model", "anthropic", "/v1"],
      [{ status: 400, message: "claude-nope is not a valid model ID" }, "unknown_model", "openai-compatible", "/v1"],
      [{ status: 500, message: "overloaded" }, "failed", "openai", "/v1"],
    ];
    for (const [error, reason, api, path] of cases) {
      fake.push({ error });
      const result = await checkCredential(endpoint(api, `${fake.url}${path}`), "claude-nope");
      expect({ error, result }).toMatchObject({ error, result: { ok: false, reason } });
      expect(JSON.stringify(result)).not.toContain(KEY);
    }
    // No such route: the base URL is wrong (the fake server's 404 names no model id).
    expect(await checkCredential(endpoint("openai-compatible", fake.url), "m")).toMatchObject({ ok: false, reason: "endpoint" });
    fake.push({ error: { status: 429, message: "slow down" } });
    expect(await checkCredential(endpoint("anthropic", `${fake.url}/v1`), "m")).toMatchObject({ ok: true, warning: expect.stringContaining("slow down") });
  });

  test("nobody listening: unreachable", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await checkCredential(endpoint("openai-compatible", `http://127.0.0.1:${port}/v1`), "m");
    expect(result).toMatchObject({ ok: false, reason: "unreachable" });
  });
});
