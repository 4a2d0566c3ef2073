/**
 * A page that is costly to convert never holds up the agent, on each
 * runtime over stdio: while one session's fetch converts a page of nested
 * divs at the 5 MiB download bound, a second session is created and its
 * whole turn answered before that fetch completes; `session/cancel` during
 * the conversion ends the turn at once and the session goes on; the
 * 20,000 nested divs that once froze the process for most of a minute give
 * a bounded result.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { finalStatus, startScenario, toolResultText, type Scenario } from "../helpers/scenario.ts";
import { htmlRoute, NESTED_DIVS_AT_BOUND, nestedDivs, startWebServer, type WebServer } from "../helpers/web-server.ts";

const fetchCall = (id: string, url: string) => ({ toolCalls: [{ id, name: "fetch", input: { url } }] });

const deep = htmlRoute(nestedDivs(NESTED_DIVS_AT_BOUND));
let site: WebServer;
let base: string;

beforeAll(async () => {
  site = await startWebServer({ "/deep": deep.route, "/nested-20000": htmlRoute(nestedDivs(20_000)).route });
  base = `http://127.0.0.1:${site.port}`;
});

afterAll(async () => {
  await site.close();
});

/** Read-only with a rule for the local site: fetches run without asking. */
const reach = () => ({
  args: ["--approval-mode", "read-only"],
  settings: { fetch: { allowHosts: [`127.0.0.1:${site.port}`] }, permissionRules: [{ action: "allow", host: `127.0.0.1:${site.port}` }] },
});

/**
 * Prompts the scenario's session (its script fetches /deep), waits until the page is all on the
 * wire, then runs a whole turn of a second session; returns the first turn and the second's answer.
 */
async function fetchDeepThenOtherTurn(s: Scenario): Promise<{ turn: Promise<acp.PromptResponse>; answer: acp.PromptResponse }> {
  const sentBefore = deep.counter.count();
  const turn = s.prompt("read the deep page");
  await deep.counter.sent(sentBefore + 1);
  const second = await s.client.agent.request(acp.methods.agent.session.new, { cwd: s.sandbox.project, mcpServers: [] });
  const answer = await s.client.agent.request(acp.methods.agent.session.prompt, { sessionId: second.sessionId, prompt: [{ type: "text", text: "hello" }] });
  return { turn, answer };
}

describe.each(RUNTIMES)("converting a hostile page on %s", (runtime) => {
  test("a second session is created and its turn answered while the first session's fetch converts a 5 MiB page of nested divs", async () => {
    const s = await startScenario(runtime, { script: [fetchCall("f1", `${base}/deep`), { text: "second session answers" }, { text: "first session done" }], ...reach() });
    try {
      const { turn: first, answer } = await fetchDeepThenOtherTurn(s);
      // Ordered by events: the second turn ended while the fetch had not completed.
      const fetchWhenAnswered = finalStatus(s.updates(), "f1");
      expect(answer.stopReason).toBe("end_turn");
      expect(fetchWhenAnswered).not.toBe("completed");
      expect((await first).stopReason).toBe("end_turn");
      expect(finalStatus(s.updates(), "f1")).toBe("completed");
      const text = toolResultText(s.updates(), "f1");
      expect(text.length).toBeLessThan(42_000);
      expect(text).toContain("t\nt\nt");
      // A part with more to read, or a conversion stopped by its budget: either way the result says so.
      expect(text).toMatch(/Call fetch again with offset: 40000|conversion of this page to Markdown was stopped/);
    } finally {
      s.close();
    }
  }, 60_000);

  test("session/cancel during the conversion ends the turn as cancelled, and the session goes on", async () => {
    const s = await startScenario(runtime, { script: [fetchCall("f1", `${base}/deep`), { text: "second session answers" }, { text: "after the cancel" }], ...reach() });
    try {
      // A whole turn of another session first, so the page has been read and is being converted when the cancel comes.
      const { turn } = await fetchDeepThenOtherTurn(s);
      expect(finalStatus(s.updates(), "f1")).not.toBe("completed");
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      expect(finalStatus(s.updates(), "f1")).not.toBe("completed");
      expect((await s.prompt("go on")).stopReason).toBe("end_turn");
    } finally {
      s.close();
    }
  }, 60_000);

  test("20,000 nested divs give a bounded result", async () => {
    const s = await startScenario(runtime, { script: [fetchCall("f1", `${base}/nested-20000`), { text: "done" }], ...reach() });
    try {
      expect((await s.prompt("read")).stopReason).toBe("end_turn");
      expect(finalStatus(s.updates(), "f1")).toBe("completed");
      const text = toolResultText(s.updates(), "f1");
      expect(text.length).toBeLessThan(42_000);
      expect(text).toContain("t\nt\nt");
      expect(text).toMatch(/<\/untrusted-web-content-[0-9a-f]{8}>/);
    } finally {
      s.close();
    }
  }, 60_000);
});
