/**
 * Seeded hostile search-service answers through the real `web_search` tool over stdio on each runtime:
 * every search ends (completed, or failed with a reason), a result is bounded, holds exactly one untrusted
 * region (its own tag, opened and closed once), lists only http(s) links, and the agent answers the next
 * prompt. FUZZ_SEED and FUZZ_COUNT override seed and answer count.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { finalStatus, startScenario, toolResultText } from "../helpers/scenario.ts";
import { searchAnswer } from "./search-answers.ts";

const envInt = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const seed = envInt("FUZZ_SEED", 20261207);
const count = envInt("FUZZ_COUNT", 40);

let server: Server;
let base = "";
beforeAll(async () => {
  // The query names the answer: `fuzz-<index>`.
  server = createServer((request, response) => {
    const index = Number(/fuzz-(\d+)/.exec(new URL(request.url ?? "/", "http://x").searchParams.get("q") ?? "")?.[1] ?? -1);
    response.writeHead(200, { "content-type": "application/json" });
    response.end(index >= 0 ? searchAnswer(seed, index) : "{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const OWN_TAG = /<\/?untrusted-web-content-[0-9a-f]{8}>/g;
const ANY_TAG = /<\s*\/?\s*untrusted[\s_-]*web[\s_-]*content/gi;

describe.each(RUNTIMES)("seeded hostile search answers on %s", (runtime) => {
  test("each search ends, is bounded, keeps one untrusted region and lists web links only", async () => {
    const calls = Array.from({ length: count }, (_, i) => ({ toolCalls: [{ id: `s${i}`, name: "web_search", input: { query: `fuzz-${i}` } }] }));
    const s = await startScenario(runtime, {
      script: [...calls, { text: "done" }, { text: "still here" }],
      args: ["--approval-mode", "yolo"],
      settings: { webSearch: { service: "searxng", url: base, maxResults: 20 } },
    });
    try {
      expect((await s.prompt("search")).stopReason).toBe("end_turn");
      for (let i = 0; i < count; i++) {
        const where = `answer ${i} of seed ${seed}`;
        const status = finalStatus(s.updates(), `s${i}`);
        const text = toolResultText(s.updates(), `s${i}`);
        expect([where, status === "completed" || status === "failed"]).toEqual([where, true]);
        // 20 results of at most 200 + 500 + 2,000 characters, and the header.
        expect([where, text.length < 60_000]).toEqual([where, true]);
        if (status !== "completed" || text.startsWith("No results")) continue;
        const tags = text.match(OWN_TAG) ?? [];
        expect([where, tags.length, tags[0]?.replace("<", "</")]).toEqual([where, 2, tags[1]]);
        // Only the tool's own tag opens or closes the region.
        expect([where, (text.match(ANY_TAG) ?? []).length]).toEqual([where, 2]);
        const links = [...text.matchAll(/^ {3}(\S+)$/gm)].map((m) => m[1]!).filter((line) => /^[a-z]+:/i.test(line));
        expect([where, links.filter((link) => !/^https?:\/\//i.test(link))]).toEqual([where, []]);
      }
      expect((await s.prompt("are you there?")).stopReason).toBe("end_turn");
    } finally {
      s.close();
    }
  }, 120_000);
});
