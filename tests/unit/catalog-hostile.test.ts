/**
 * Hostile input to the catalogue and to the editor's provider routes, by a
 * seeded fuzzer: mutated models.dev bodies are either read whole into rows
 * that pass the cache check, or refused whole with a `CatalogDataError` (never
 * another exception); mutated `providers/set` params are either accepted in
 * full or refused with -32602 whose text quotes no header value. Plus the
 * refresh against a local server: too large, not JSON, refused status, and a
 * tampered cache file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { parseSetProvider } from "../../src/acp/params/provider-params.ts";
import { CATALOG_PLAN } from "../../src/models/catalog-data/catalog-plan.ts";
import { CatalogDataError, catalogFromApi, checkedRows } from "../../src/models/catalog-data/models-dev.ts";
import { catalogInfo, catalogProviders, loadCatalog, useFresherCatalog } from "../../src/models/catalog.ts";
import type { CatalogRow } from "../../src/models/catalog-data/row.ts";
import { CACHE_FILE, refreshCatalog } from "../../src/models/catalog-refresh.ts";

/** A small deterministic generator (mulberry32), so a failure names its seed and comes back. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY: unknown[] = [
  null, undefined, true, -1, 0, 1e308, Number.NaN, "", "x".repeat(5000), "\r\n", "\u0000", [], {}, [1, 2], { __proto__: { polluted: 1 } },
  "constructor", "__proto__", 2 ** 53, -0.5, "1e9", ["text"], { input: "free" },
];

function sonnet(): Record<string, unknown> {
  return {
    id: "claude-sonnet-4-5",
    name: "Claude Sonnet 4.5",
    tool_call: true,
    reasoning: true,
    modalities: { input: ["text", "image", "pdf"], output: ["text"] },
    limit: { context: 200_000, output: 64_000 },
    cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
  };
}

function validBody(): Record<string, any> {
  const body: Record<string, any> = {};
  for (const source of CATALOG_PLAN.flatMap((plan) => plan.sources)) body[source] = { id: source, env: ["X_API_KEY"], models: { "claude-sonnet-4-5": sonnet() } };
  return body;
}

/** Replaces one value somewhere in `value` (depth-first, chosen by `next`) with a nasty one. */
function mutate(value: any, next: () => number, depth = 0): any {
  if (depth > 5 || typeof value !== "object" || value === null || next() < 0.15) return NASTY[Math.floor(next() * NASTY.length)];
  const keys = Object.keys(value);
  if (keys.length === 0) return NASTY[Math.floor(next() * NASTY.length)];
  const key = keys[Math.floor(next() * keys.length)]!;
  const copy = Array.isArray(value) ? [...value] : { ...value };
  copy[key] = mutate(value[key], next, depth + 1);
  return copy;
}

describe("models.dev bodies", () => {
  test("the shipped snapshot has a module for every provider the plan keeps, and for nothing else", async () => {
    expect(await catalogProviders()).toEqual(CATALOG_PLAN.map((plan) => plan.name));
  });

  test("a valid body gives every planned provider its rows, and the rows pass the cache check", () => {
    const rows = catalogFromApi(validBody());
    expect([...rows.keys()]).toEqual(CATALOG_PLAN.map((p) => p.name));
    expect(rows.get("anthropic")).toEqual([["claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, 7, 3, 15, 0.3, 3.75]]);
    expect(checkedRows(Object.fromEntries(rows)).size).toBe(rows.size);
  });

  test("2000 mutated bodies: read whole, or refused whole with CatalogDataError", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const body = mutate(validBody(), random(seed));
      let rows: Map<string, unknown> | undefined;
      try {
        rows = catalogFromApi(body);
      } catch (error) {
        if (!(error instanceof CatalogDataError)) throw new Error(`seed ${seed}: ${String(error)}`);
        continue;
      }
      // What was read holds nothing the cache check would refuse.
      expect(() => checkedRows(Object.fromEntries(rows!))).not.toThrow();
    }
  });

  test("a provider listing more models than any provider has is refused whole", () => {
    const body = validBody();
    body.anthropic.models = Object.fromEntries(Array.from({ length: 700 }, (_, i) => [`m${i}`, sonnet()]));
    expect(() => catalogFromApi(body)).toThrow(CatalogDataError);
  });
});

describe("providers/set params", () => {
  const SECRET = "hdr-secret-value-0f9e8d7c";
  const valid = () => ({ providerId: "anthropic", apiType: "anthropic", baseUrl: "https://gateway.example/anthropic", headers: { "X-Gateway-Key": SECRET } });

  test("valid params are read as they are", () => {
    expect(parseSetProvider(valid())).toEqual(valid());
  });

  test("2000 mutated params: accepted in full, or refused with -32602 quoting no header value", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const params = mutate(valid(), random(seed));
      try {
        const read = parseSetProvider(params);
        expect(typeof read.baseUrl).toBe("string");
        expect(/^https?:\/\//.test(read.baseUrl)).toBe(true);
        for (const [name, value] of Object.entries(read.headers)) expect(/[\r\n\u0000]/.test(name + value)).toBe(false);
      } catch (error) {
        if (!(error instanceof RequestError) || error.code !== -32602) throw new Error(`seed ${seed}: ${String(error)}`);
        expect(JSON.stringify({ message: error.message, data: error.data })).not.toContain(SECRET);
      }
    }
  });
});

describe("the run-time refresh", () => {
  let server: Server;
  let base: string;
  let home: string;
  const replies: Record<string, (response: import("node:http").ServerResponse) => void> = {
    "/good": (r) => r.end(JSON.stringify(validBody())),
    "/not-json": (r) => r.end("<html>rate limited</html>"),
    "/refused": (r) => {
      r.writeHead(503);
      r.end("{}");
    },
    "/too-large-declared": (r) => {
      r.writeHead(200, { "content-length": String(64 * 1024 * 1024) });
      r.end();
    },
    "/too-large-streamed": (r) => {
      const chunk = "x".repeat(1024 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 40 && r.write(chunk)) sent++;
        if (sent < 40) r.once("drain", more);
        else r.end();
      };
      r.on("error", () => undefined);
      more();
    },
  };

  beforeAll(async () => {
    server = createServer((request, response) => (replies[request.url ?? ""] ?? ((r) => r.end()))(response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await loadCatalog(await catalogProviders());
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    // The good body replaced the catalogue of this process: the snapshot goes back for the tests that follow.
    const snapshot = new Map<string, CatalogRow[]>();
    for (const name of await catalogProviders()) snapshot.set(name, (await import(`../../src/models/catalog-data/${name}.ts`)).default);
    await useFresherCatalog(snapshot);
  });

  const fresh = () => (home = mkdtempSync(join(tmpdir(), "acp-edge-catalog-")));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  test("off unless the settings turn it on", async () => {
    expect(await refreshCatalog({ home: fresh(), settings: { url: `${base}/good` } })).toBe("off");
  });

  test.each(["/not-json", "/refused", "/too-large-declared", "/too-large-streamed"])("%s keeps the catalogue and writes no cache", async (path) => {
    const before = catalogInfo("anthropic", "claude-sonnet-4-5");
    const outcome = await refreshCatalog({ home: fresh(), settings: { refresh: true, url: `${base}${path}` } });
    expect(["refused", "unreachable"]).toContain(outcome);
    expect(() => readFileSync(join(home, CACHE_FILE))).toThrow();
    expect(catalogInfo("anthropic", "claude-sonnet-4-5")).toEqual(before);
  });

  test("a good body is kept; a day later it is fetched again; a tampered cache is not used", async () => {
    const now = Date.now();
    expect(await refreshCatalog({ home: fresh(), settings: { refresh: true, url: `${base}/good` }, now })).toBe("updated");
    const cached = JSON.parse(readFileSync(join(home, CACHE_FILE), "utf8"));
    expect(cached.fetchedAt).toBe(now);
    expect(await refreshCatalog({ home, settings: { refresh: true, url: `${base}/refused` }, now: now + 1000 })).toBe("cached");
    expect(await refreshCatalog({ home, settings: { refresh: true, url: `${base}/refused` }, now: now + 25 * 3600 * 1000 })).toBe("unreachable");
    cached.rows.anthropic[0][2] = -5;
    writeFileSync(join(home, CACHE_FILE), JSON.stringify(cached));
    // The tampered copy is not read back: the refresh goes to the network again (here refused).
    expect(await refreshCatalog({ home, settings: { refresh: true, url: `${base}/refused` }, now: now + 1000 })).toBe("unreachable");
  });
});
