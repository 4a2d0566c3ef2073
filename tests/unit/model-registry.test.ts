import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { configuredProviders } from "../../src/config/providers.ts";
import type { AuthFile, Settings } from "../../src/config/settings-schema.ts";
import { ModelRegistry, type ModelChoice } from "../../src/models/registry.ts";
import { callCost } from "../../src/models/cost.ts";
import { catalogProviders, loadCatalog } from "../../src/models/catalog.ts";

// The catalogue loads on demand (a session's registry refresh loads it); these lookups read it synchronously.
beforeAll(async () => loadCatalog(await catalogProviders()));

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

function registry(settings: Settings = {}, auth: AuthFile = {}) {
  for (const key of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"]) delete process.env[key];
  return () => new ModelRegistry({ credentials: { providers: configuredProviders(settings), auth }, settings });
}

const chosen = (value: unknown) => value as ModelChoice;

describe("ModelRegistry", () => {
  test("no credentials: no default, and the message says what to set", () => {
    const make = registry();
    const problem = make().pickDefault();
    expect(problem).toMatchObject({ kind: "auth" });
    expect((problem as { message: string }).message).toContain("ANTHROPIC_API_KEY");
    expect(make().authenticated()).toEqual([]);
  });

  test("an environment key authenticates its provider and picks the preferred default", () => {
    const make = registry();
    process.env.OPENAI_API_KEY = "sk-openai-test-key";
    const choice = chosen(make().pickDefault());
    expect(choice.spec).toBe("openai/gpt-5");
    expect(choice.credential).toEqual({ ok: true, apiKey: "sk-openai-test-key", source: "environment" });
  });

  test("auth.json wins over the environment", () => {
    const make = registry({}, { anthropic: { type: "api_key", key: "from-auth-file-123" } });
    process.env.ANTHROPIC_API_KEY = "from-env-456789";
    const choice = chosen(make().find("anthropic/claude-haiku-4-5"));
    expect(choice.credential).toEqual({ ok: true, apiKey: "from-auth-file-123", source: "auth.json" });
  });

  test("custom providers: no apiKeyEnv means no key needed; a missing variable is reported", () => {
    const make = registry({
      providers: {
        local: { api: "openai-compatible", baseUrl: "http://127.0.0.1:11434/v1", models: [{ id: "qwen3", contextWindow: 32768 }] },
        team: { api: "openai-compatible", baseUrl: "http://127.0.0.1:9999/v1", apiKeyEnv: "TEAM_KEY", models: [{ id: "big" }] },
      },
    });
    const local = chosen(make().find("local/qwen3"));
    expect(local.credential).toEqual({ ok: true, source: "not needed" });
    expect(local.info.contextWindow).toBe(32768);
    const team = chosen(make().find("team/big"));
    expect(team.credential.ok).toBe(false);
    expect(!team.credential.ok && team.credential.hint).toContain("TEAM_KEY");
    expect(chosen(make().pickDefault()).spec).toBe("local/qwen3");
  });

  test("settings override catalog facts, and unknown ids of known providers get defaults", () => {
    const make = registry({ models: { "anthropic/claude-sonnet-4-5": { contextWindow: 1_000_000 } } });
    expect(chosen(make().find("anthropic/claude-sonnet-4-5")).info).toMatchObject({ contextWindow: 1_000_000, reasoning: true, price: { input: 3, output: 15 } });
    const unknown = chosen(make().find("anthropic/claude-future-9"));
    expect(unknown.info).toMatchObject({ id: "claude-future-9", contextWindow: 200_000 });
    expect(unknown.info.price).toBeUndefined();
  });

  test("bad specs and unknown providers are explained", () => {
    const make = registry();
    expect(make().find("nonsense")).toMatchObject({ kind: "unknown" });
    const problem = make().find("acme/model") as { message: string };
    expect(problem.message).toContain('unknown provider "acme"');
    expect(problem.message).toContain("anthropic");
  });

  test("a preferred model without credentials is an auth problem naming the model", () => {
    const make = registry();
    const problem = make().pickDefault("anthropic/claude-opus-4-5") as { kind: string; message: string };
    expect(problem.kind).toBe("auth");
    expect(problem.message).toContain("anthropic/claude-opus-4-5");
  });

  test("faux models need no key but are never picked by default", () => {
    const make = registry();
    expect(chosen(make().find("faux/echo")).credential.ok).toBe(true);
    expect(make().pickDefault()).toMatchObject({ kind: "auth" });
    expect(chosen(make().pickDefault("faux/echo")).spec).toBe("faux/echo");
  });

  test("ANTHROPIC_BASE_URL gets its /v1, with or without it", () => {
    registry();
    process.env.ANTHROPIC_BASE_URL = "http://127.0.0.1:4010";
    expect(configuredProviders({}).find((p) => p.name === "anthropic")?.baseUrl).toBe("http://127.0.0.1:4010/v1");
    process.env.ANTHROPIC_BASE_URL = "http://127.0.0.1:4010/v1/";
    expect(configuredProviders({}).find((p) => p.name === "anthropic")?.baseUrl).toBe("http://127.0.0.1:4010/v1");
  });

  test("a custom provider may not take a built-in name", () => {
    expect(() => configuredProviders({ providers: { openai: { api: "openai-compatible" } } })).toThrow("built in");
  });

  test('promptCache "long" doubles the catalog\'s input price for cache writes, never a configured cacheWrite', () => {
    const catalog = chosen(registry({ promptCache: "long" })().find("anthropic/claude-sonnet-4-5")).info.price;
    expect(catalog).toMatchObject({ input: 3, cacheWrite: 6 });
    const configured = registry({ promptCache: "long", models: { "anthropic/claude-sonnet-4-5": { price: { input: 3, output: 15, cacheWrite: 4.5 } } } });
    expect(chosen(configured().find("anthropic/claude-sonnet-4-5")).info.price).toMatchObject({ input: 3, cacheWrite: 4.5 });
    const withoutWrite = registry({ promptCache: "long", models: { "anthropic/claude-sonnet-4-5": { price: { input: 5, output: 15 } } } });
    expect(chosen(withoutWrite().find("anthropic/claude-sonnet-4-5")).info.price).toMatchObject({ input: 5, cacheWrite: 10 });
  });

  test("cost follows the list price", () => {
    const info = chosen(registry()().find("anthropic/claude-sonnet-4-5")).info;
    expect(callCost(info, { input: 1_000_000, output: 100_000, cacheRead: 0, cacheWrite: 0 })).toBeCloseTo(3 + 1.5, 6);
  });
});
