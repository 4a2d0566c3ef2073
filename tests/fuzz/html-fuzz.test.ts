/**
 * The hostile-HTML fuzzer at CI size: 150 seeded pages through the
 * converter (see html-fuzz.ts for the checks), and 3 more through the
 * real fetch tool over stdio on each runtime, served by a local web server:
 * each result is bounded, holds exactly one end of the untrusted region
 * (the tool's own), and links only to http(s) or mailto.
 * FUZZ_SEED and FUZZ_COUNT override seed and page count (the fetch tool
 * gets FUZZ_COUNT / 50 pages, at least 1).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { finalStatus, startScenario, toolResultText } from "../helpers/scenario.ts";
import { htmlRoute, startWebServer, type WebServer } from "../helpers/web-server.ts";
import { linkTargets, MAX_PAGE_CHARS, runHtmlCampaign } from "./html-fuzz.ts";
import { hostilePage } from "./html-pages.ts";

const envInt = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const seed = envInt("FUZZ_SEED", 20261206);
const count = envInt("FUZZ_COUNT", 150);
const toolPages = Math.max(1, Math.floor(count / 50));

test("the converter stays bounded and safe on seeded hostile pages", () => {
  const result = runHtmlCampaign(seed, count);
  const shown = result.findings.slice(0, 5).map((f) => `page ${f.index} (seed ${seed}): ${f.problems.slice(0, 3).join("; ")}`);
  expect(shown).toEqual([]);
  expect(result.pages).toBe(count);
  console.log(`html fuzz: seed ${seed}, ${count} pages, ${result.kib.toFixed(0)} KiB, slowest ${result.worstMsPerKiB.toFixed(2)} ms/KiB`);
}, 300_000);

let site: WebServer;
beforeAll(async () => {
  const routes: Record<string, ReturnType<typeof htmlRoute>["route"]> = {};
  for (let i = 0; i < toolPages; i++) routes[`/page-${i}`] = htmlRoute(hostilePage(seed, count + i, MAX_PAGE_CHARS)).route;
  site = await startWebServer(routes);
});
afterAll(async () => {
  await site.close();
});

const CLOSING = /<\s*\/\s*untrusted-web-content/gi;

describe.each(RUNTIMES)("seeded hostile pages through the fetch tool on %s", (runtime) => {
  test("each result is bounded, ends the untrusted region once, and links to the web only", async () => {
    const host = `127.0.0.1:${site.port}`;
    const calls = Array.from({ length: toolPages }, (_, i) => ({ toolCalls: [{ id: `p${i}`, name: "fetch", input: { url: `http://${host}/page-${i}` } }] }));
    const s = await startScenario(runtime, {
      script: [...calls, { text: "done" }],
      args: ["--approval-mode", "read-only"],
      settings: { fetch: { allowHosts: [host] }, permissionRules: [{ action: "allow", host }] },
    });
    try {
      expect((await s.prompt("read them")).stopReason).toBe("end_turn");
      for (let i = 0; i < toolPages; i++) {
        const text = toolResultText(s.updates(), `p${i}`);
        const where = `page ${count + i} of seed ${seed}`;
        expect([where, finalStatus(s.updates(), `p${i}`)]).toEqual([where, "completed"]);
        expect([where, text.length < 42_000]).toEqual([where, true]);
        expect([where, text.match(CLOSING)?.length]).toEqual([where, 1]);
        const body = text.slice(text.search(/<untrusted-web-content-[0-9a-f]{8}>/), text.search(CLOSING));
        expect([where, linkTargets(body).filter((target) => !/^(?:https?:\/\/|mailto:)/i.test(target))]).toEqual([where, []]);
      }
    } finally {
      s.close();
    }
  }, 120_000);
});
