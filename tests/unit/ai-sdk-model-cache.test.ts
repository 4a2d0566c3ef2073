/**
 * Provider models are shared between sessions that use the same model
 * through the same endpoint (and key), never across different ones; a
 * failed build is not kept, and the cache stays bounded.
 */
import { describe, expect, test } from "bun:test";
import { sharedModel } from "../../src/models/ai-sdk-model-cache.ts";
import type { LanguageModel } from "../../src/models/ai-sdk-v3.ts";
import type { ModelInfo, ProviderEndpoint } from "../../src/models/types.ts";

const info = (id: string) => ({ id, provider: "p" }) as ModelInfo;
const endpoint = (apiKey: string, extra: Partial<ProviderEndpoint> = {}): ProviderEndpoint => ({ provider: "p", api: "openai-compatible", baseUrl: "http://127.0.0.1:1/v1", apiKey, maxRetries: 0, ...extra });
let built = 0;
const build = () => Promise.resolve({ built: ++built } as unknown as LanguageModel);

describe("sharedModel", () => {
  test("one model per model, endpoint and key", async () => {
    const a = sharedModel(info("m-share"), endpoint("k1"), build);
    expect(sharedModel(info("m-share"), endpoint("k1"), build)).toBe(a);
    const others = [
      sharedModel(info("m-share"), endpoint("k2"), build),
      sharedModel(info("m-other"), endpoint("k1"), build),
      sharedModel(info("m-share"), endpoint("k1", { baseUrl: "http://127.0.0.1:2/v1" }), build),
      sharedModel(info("m-share"), endpoint("k1", { headers: { "x-team": "a" } }), build),
      sharedModel(info("m-share"), endpoint("k1", { provider: "q" }), build),
    ];
    for (const other of others) expect(other).not.toBe(a);
    expect(new Set(await Promise.all([a, ...others])).size).toBe(6);
  });

  test("endpoints that differ only in a cloud's placement, API version, how the key is sent or Google's credentials never share a model", async () => {
    const a = sharedModel(info("m-cloud"), endpoint("k1"), build);
    const variants: Partial<ProviderEndpoint>[] = [
      { project: "proj-a" },
      { location: "europe-west4" },
      { region: "eu-central-1" },
      { resourceName: "res-a" },
      { apiVersion: "2025-01-01" },
      { entra: true },
      { google: { kind: "file", path: "/keys/a.json" } },
      { google: { kind: "file", path: "/keys/b.json" } },
      { google: { kind: "metadata" } },
    ];
    const others = variants.map((extra) => sharedModel(info("m-cloud"), endpoint("k1", extra), build));
    for (const other of others) expect(other).not.toBe(a);
    expect(new Set(await Promise.all([a, ...others])).size).toBe(variants.length + 1);
    // The same placement again is the same model.
    expect(sharedModel(info("m-cloud"), endpoint("k1", { region: "eu-central-1" }), build)).toBe(others[2]!);
  });

  test("a failed build is built again next time", async () => {
    const failing = sharedModel(info("m-fail"), endpoint("k"), () => Promise.reject(new Error("no provider")));
    await expect(failing).rejects.toThrow("no provider");
    await Promise.resolve();
    const next = sharedModel(info("m-fail"), endpoint("k"), build);
    expect(next).not.toBe(failing);
    expect(await next).toBeDefined();
  });

  test("bounded: the least recently used model goes first", () => {
    const first = sharedModel(info("m-0"), endpoint("lru"), build);
    const early = sharedModel(info("m-1"), endpoint("lru"), build);
    for (let i = 2; i <= 40; i += 1) {
      sharedModel(info(`m-${i}`), endpoint("lru"), build);
      sharedModel(info("m-0"), endpoint("lru"), build); // kept in use
    }
    expect(sharedModel(info("m-0"), endpoint("lru"), build)).toBe(first);
    expect(sharedModel(info("m-1"), endpoint("lru"), build)).not.toBe(early);
  });
});
