/**
 * The `web_search` tool on a search service the user configured, on every runtime: an OpenAI-compatible
 * model searches through a SearXNG on the loopback (the user's own address is reachable) and reads titles
 * and URLs as untrusted content; `ask` mode asks once for two searches; `read-only` refuses unless a rule
 * allows; a project file cannot name a service. Hostile services: garbage, megabytes, a redirect to a
 * private address, an answer that never comes (bounded, and cancel works), results spelling the marker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { connectClient, initialize, acp } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES, spawnAgent } from "../helpers/agent-process.ts";
import { startFakeModelServer } from "../helpers/fake-model-server.ts";
import { useFakeProvider } from "../helpers/fake-provider.ts";
import { SEARXNG_RESULTS, startFakeSearxng, type FakeSearxng } from "../helpers/fake-searxng.ts";
import { answering, finalStatus, startScenario, toolEvents, toolResultText } from "../helpers/scenario.ts";

let searxng: FakeSearxng;
beforeAll(async () => {
  searxng = await startFakeSearxng();
});
afterAll(async () => {
  await searxng.close();
});

/** Files under `root` whose content holds `text` (the settings file names only the variable, never the key). */
function filesHolding(root: string, text: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(root, { recursive: true }) as string[]) {
    const path = join(root, name);
    if (statSync(path).isFile() && readFileSync(path, "utf8").includes(text)) found.push(name);
  }
  return found;
}

const search = (id: string, query: string) => ({ toolCalls: [{ id, name: "web_search", input: { query } }] });
const service = (behaviour: string, extra: object = {}) => ({ webSearch: { service: "searxng", url: `${searxng.url}/${behaviour}/`, ...extra } });

for (const runtime of RUNTIMES) {
  describe(`${runtime}: web search through a service`, () => {
    test("an OpenAI-compatible model searches through SearXNG; ask mode asks once for two searches", async () => {
      const model = await startFakeModelServer([search("s1", "migration guide v5"), { text: "found it" }, search("s2", "v5 release notes"), { text: "again" }]);
      const sandbox = makeSandbox();
      try {
        useFakeProvider(sandbox.home, model, { models: [{ id: "qwen3" }], extra: service("ok") });
        const answers = answering("allow_always");
        const proc = spawnAgent(runtime, ["agent", "stdio", "--approval-mode", "ask"], { cwd: sandbox.project, env: { ACP_EDGE_HOME: sandbox.home } });
        const client = connectClient(proc, answers);
        try {
          await initialize(client);
          const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
          const prompt = (text: string) => client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
          await prompt("find the migration guide");
          await prompt("and the release notes");
          const offered = (await model.request(1)).body.tools as Array<{ function: { name: string } }>;
          expect(offered.map((t) => t.function.name)).toContain("web_search");
          expect(answers.requests).toHaveLength(1);
          const queries = searxng.queries.filter((q) => q.base === "ok").map((q) => q.q);
          expect(queries).toContain("migration guide v5");
          expect(queries).toContain("v5 release notes");
          // What the model read: titles and URLs, inside the untrusted region; links that are not http(s) are dropped.
          const read = (await model.request(2)).body.messages.at(-1).content as string;
          for (const r of SEARXNG_RESULTS) {
            expect(read).toContain(r.title);
            expect(read).toContain(r.url);
          }
          expect(read).toMatch(/<untrusted-web-content-[0-9a-f]{8}>/);
          expect(read).not.toContain("javascript:");
          const updates = client.updates(sessionId);
          const call = toolEvents(updates, "s1")[0] as { kind?: string; title?: string };
          expect(call.kind).toBe("search");
          expect(call.title).toBe("migration guide v5");
          expect(finalStatus(updates, "s2")).toBe("completed");
        } finally {
          client.close();
          proc.child.kill("SIGKILL");
        }
      } finally {
        sandbox.cleanup();
        await model.close();
      }
    });

    test("read-only refuses a search unless a rule allows it; yolo runs it unasked; a project cannot name a service", async () => {
      const before = searxng.queries.length;
      const refused = await startScenario(runtime, { script: [search("r1", "anything"), { text: "done" }], settings: service("ok"), args: ["--approval-mode", "read-only"] });
      try {
        await refused.prompt("go");
        expect(finalStatus(refused.updates(), "r1")).toBe("failed");
        expect(searxng.queries.length).toBe(before);
      } finally {
        refused.close();
      }
      const ruled = await startScenario(runtime, {
        script: [search("a1", "allowed by rule"), { text: "done" }],
        settings: { ...service("ok"), permissionRules: [{ action: "allow", tools: ["web_search"] }] },
        args: ["--approval-mode", "read-only"],
      });
      try {
        await ruled.prompt("go");
        expect(finalStatus(ruled.updates(), "a1")).toBe("completed");
      } finally {
        ruled.close();
      }
      const answers = answering("reject_once");
      const yolo = await startScenario(runtime, { script: [search("y1", "yolo search"), { text: "done" }], settings: service("ok"), args: ["--approval-mode", "yolo"], ...answers });
      try {
        await yolo.prompt("go");
        expect(finalStatus(yolo.updates(), "y1")).toBe("completed");
        expect(answers.requests).toHaveLength(0);
      } finally {
        yolo.close();
      }
      const project = await startScenario(runtime, {
        script: [search("p1", "from the project"), { text: "done" }],
        files: { "project/.acp-edge/settings.json": JSON.stringify(service("ok")) },
        args: ["--approval-mode", "yolo"],
      });
      try {
        await project.prompt("go");
        expect(finalStatus(project.updates(), "p1")).toBe("failed");
        expect(searxng.queries.some((q) => q.q === "from the project")).toBe(false);
      } finally {
        project.close();
      }
    });

    test("Brave, Tavily and Exa are asked their own way with the key from the named variable, which never leaves the request", async () => {
      const key = "search-key-4f1c9a7e2b6d8053";
      const expected: Record<string, (request: FakeSearxng["keyed"][number]) => void> = {
        brave: (r) => {
          expect([r.method, r.query, r.headers["x-subscription-token"]]).toEqual(["GET", "brave query", key]);
        },
        tavily: (r) => {
          expect([r.method, r.headers.authorization, JSON.parse(r.body).query]).toEqual(["POST", `Bearer ${key}`, "tavily query"]);
        },
        exa: (r) => {
          expect([r.method, r.headers["x-api-key"], JSON.parse(r.body).query]).toEqual(["POST", key, "exa query"]);
        },
      };
      for (const [name, check] of Object.entries(expected)) {
        const s = await startScenario(runtime, {
          script: [search("k1", `${name} query`), { text: "done" }],
          settings: { webSearch: { service: name, url: `${searxng.url}/keyed/${name}`, apiKeyEnv: "SEARCH_TEST_KEY" } },
          args: ["--approval-mode", "yolo"],
          env: { SEARCH_TEST_KEY: key },
        });
        try {
          await s.prompt("go");
          expect(finalStatus(s.updates(), "k1")).toBe("completed");
          const text = toolResultText(s.updates(), "k1");
          expect(text).toContain(SEARXNG_RESULTS[0]!.url);
          expect(text).toContain(`${name} snippet`);
          check(searxng.keyed.filter((r) => r.service === name).at(-1)!);
          // The key is in no message to the client and in no session file.
          expect(JSON.stringify(s.client.received)).not.toContain(key);
          expect(filesHolding(s.sandbox.root, key)).toEqual([]);
        } finally {
          s.close();
        }
      }
    });

    test("hostile services: garbage, megabytes, a redirect to a private address, the marker in results", async () => {
      const cases: Array<[string, string]> = [
        ["garbage", "did not answer with JSON"],
        ["huge", "more than 1 MiB"],
        ["redirect", "redirect, which is not followed"],
      ];
      for (const [behaviour, expected] of cases) {
        const s = await startScenario(runtime, { script: [search("h1", `hostile ${behaviour}`), { text: "done" }], settings: service(behaviour), args: ["--approval-mode", "yolo"] });
        try {
          await s.prompt("go");
          expect(finalStatus(s.updates(), "h1")).toBe("failed");
          expect(toolResultText(s.updates(), "h1")).toContain(expected);
          expect(toolResultText(s.updates(), "h1")).not.toContain("169.254.169.254");
        } finally {
          s.close();
        }
      }
      const s = await startScenario(runtime, { script: [search("m1", "marker"), { text: "done" }], settings: service("marker"), args: ["--approval-mode", "yolo"] });
      try {
        await s.prompt("go");
        const text = toolResultText(s.updates(), "m1");
        expect(finalStatus(s.updates(), "m1")).toBe("completed");
        expect(text).not.toMatch(/<\/?untrusted[-_]web[-_]content>/i);
        expect(text).toContain("&lt;/untrusted-web-content>");
        expect(text.match(/<\/?untrusted-web-content-[0-9a-f]{8}>/g)).toHaveLength(2);
      } finally {
        s.close();
      }
    });

    test("a service that never answers is stopped by its time bound, and a cancel ends the search at once", async () => {
      const bounded = await startScenario(runtime, { script: [search("t1", "slow"), { text: "done" }], settings: service("slow", { timeoutSeconds: 0.5 }), args: ["--approval-mode", "yolo"] });
      try {
        await bounded.prompt("go");
        expect(toolResultText(bounded.updates(), "t1")).toContain("took longer than 0.5 s");
      } finally {
        bounded.close();
      }
      const cancelled = await startScenario(runtime, { script: [search("c1", "slow cancel"), { text: "done" }], settings: service("slow"), args: ["--approval-mode", "yolo"] });
      try {
        const answer = cancelled.prompt("go");
        // Cancelled once the service has the query: the search is under way.
        while (!searxng.queries.some((q) => q.q === "slow cancel")) await new Promise((resolve) => setImmediate(resolve));
        await cancelled.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: cancelled.sessionId });
        expect((await answer).stopReason).toBe("cancelled");
      } finally {
        cancelled.close();
      }
    });
  });
}
