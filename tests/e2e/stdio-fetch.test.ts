/**
 * The `fetch` tool over stdio with the faux model and real local web
 * servers: an allowed host's article comes back as Markdown after the
 * editor was asked; hosts that are not public and not allowed — directly,
 * in other spellings, through redirects, or listed only by a project's
 * settings — are never reached; a huge page gives a bounded result; other
 * schemes are refused before anyone is asked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { answering, finalStatus, startScenario, toolEvents, toolResultText } from "../helpers/scenario.ts";
import { ARTICLE_HTML, hugePage, startWebServer, type WebServer } from "../helpers/web-server.ts";

const fetchCall = (id: string, input: Record<string, unknown>) => ({ toolCalls: [{ id, name: "fetch", input }] });
const done = { text: "done" };

/** The text the model read for one call. */
const resultText = toolResultText;

let site: WebServer;
let forbidden: WebServer;

beforeAll(async () => {
  forbidden = await startWebServer({ "/": (r) => r.end("FORBIDDEN-REACHED") });
  site = await startWebServer({
    "/article": (r) => {
      r.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      r.end(ARTICLE_HTML);
    },
    "/moved": (r) => {
      r.writeHead(301, { location: "/article" });
      r.end();
    },
    "/to-forbidden": (r) => {
      r.writeHead(302, { location: `http://127.0.0.1:${forbidden.port}/` });
      r.end();
    },
    "/to-metadata": (r) => {
      r.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
      r.end();
    },
    "/data.json": (r) => {
      r.writeHead(200, { "content-type": "application/json" });
      r.end('{"version":"2.0.1","items":[1,2]}');
    },
    "/logo.png": (r) => {
      r.writeHead(200, { "content-type": "image/png" });
      r.end(Buffer.alloc(2048, 7));
    },
    "/huge": hugePage(12 * 1024 * 1024),
  });
});

afterAll(async () => {
  await site.close();
  await forbidden.close();
});

describe.each(RUNTIMES)("the fetch tool on %s", (runtime) => {
  test("an allowed local article comes back as Markdown after the editor was asked; JSON passes, images are described", async () => {
    const answers = answering("allow_always");
    const base = `http://127.0.0.1:${site.port}`;
    const s = await startScenario(runtime, {
      script: [fetchCall("f1", { url: `${base}/article` }), fetchCall("f2", { url: `${base}/moved` }), fetchCall("f3", { url: `${base}/data.json` }), fetchCall("f4", { url: `${base}/logo.png` }), done],
      settings: { fetch: { allowHosts: [`127.0.0.1:${site.port}`] } },
      ...answers,
    });
    try {
      await s.prompt("read the guide");
      // Asked once, naming the host; the "always" answer covers the rest of the host.
      expect(answers.requests).toHaveLength(1);
      expect(answers.requests[0]!.toolCall.title).toContain(`127.0.0.1:${site.port}`);
      expect(answers.requests[0]!.options.find((o) => o.kind === "allow_always")?.name).toContain(`fetching from 127.0.0.1:${site.port}`);
      const article = resultText(s.updates(), "f1");
      expect(article).toContain("# Upgrading to v2");
      expect(article).toContain("## Example");
      expect(article).toContain(`[API reference](${base}/docs/api)`);
      expect(article).toContain("const app = run({ port: 1 });");
      expect(article).toContain("untrusted");
      for (const noise of ["MENU-HOME", "MENU-PRICING", "SCRIPT_TEXT", "SECOND_SCRIPT", "STYLE-TEXT", "SITE-HEADER-TEXT", "FOOTER-TEXT"]) expect(article).not.toContain(noise);
      expect(resultText(s.updates(), "f2")).toContain("# Upgrading to v2");
      expect(resultText(s.updates(), "f3")).toContain('{"version":"2.0.1","items":[1,2]}');
      const image = resultText(s.updates(), "f4");
      expect(image).toContain("image/png");
      expect(image).toContain("2048 bytes");
      const call = toolEvents(s.updates(), "f1")[0] as { kind?: string; title?: string };
      expect(call.kind).toBe("fetch");
      expect(call.title).toBe(`Fetch ${base}/article`);
      expect(finalStatus(s.updates(), "f1")).toBe("completed");
    } finally {
      s.close();
    }
  });

  test("a host that is not public and not allowed is never reached: directly, spelled otherwise, or through a redirect", async () => {
    const answers = answering("allow_once");
    const before = forbidden.requests.length;
    const base = `http://127.0.0.1:${site.port}`;
    const port = forbidden.port;
    const direct = [`http://127.0.0.1:${port}/`, `http://2130706433:${port}/`, `http://0177.0.0.1:${port}/`, `http://0x7f.1:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::1]:${port}/`, `http://localhost:${port}/`];
    const s = await startScenario(runtime, {
      script: [...direct.map((url, i) => fetchCall(`d${i}`, { url })), fetchCall("r1", { url: `${base}/to-forbidden` }), fetchCall("r2", { url: `${base}/to-metadata` }), fetchCall("m1", { url: "http://169.254.169.254/latest/meta-data/" }), fetchCall("x1", { url: "file:///etc/passwd" }), fetchCall("x2", { url: `ftp://127.0.0.1:${port}/` }), fetchCall("x3", { url: "data:text/plain,hi" }), done],
      settings: { fetch: { allowHosts: [`127.0.0.1:${site.port}`] } },
      ...answers,
    });
    try {
      await s.prompt("go");
      expect(forbidden.requests.length).toBe(before);
      for (const id of direct.map((_url, i) => `d${i}`)) {
        expect(finalStatus(s.updates(), id)).toBe("failed");
        expect(resultText(s.updates(), id)).toContain("not a public address");
      }
      expect(resultText(s.updates(), "r1")).toContain("not followed");
      expect(resultText(s.updates(), "r2")).toContain("169.254.169.254");
      expect(resultText(s.updates(), "r2")).toContain("link-local");
      expect(resultText(s.updates(), "m1")).toContain("link-local");
      expect(resultText(s.updates(), "x1")).toContain("only http and https");
      expect(resultText(s.updates(), "x2")).toContain("only http and https");
      expect(resultText(s.updates(), "x3")).toContain("only http and https");
      // Only the calls to the allowed host were put to the editor; refused addresses were not.
      expect(answers.requests.map((r) => r.toolCall.toolCallId)).toEqual(["r1", "r2"]);
    } finally {
      s.close();
    }
  });

  test("a project's settings cannot allow a host: the key is ignored and the session works", async () => {
    const answers = answering("allow_once");
    const before = forbidden.requests.length;
    const s = await startScenario(runtime, {
      script: [fetchCall("p1", { url: `http://127.0.0.1:${forbidden.port}/` }), done],
      files: { "project/.acp-edge/settings.json": JSON.stringify({ fetch: { allowHosts: [`127.0.0.1:${forbidden.port}`] } }) },
      ...answers,
    });
    try {
      const response = await s.prompt("go");
      expect(response.stopReason).toBe("end_turn");
      expect(forbidden.requests.length).toBe(before);
      expect(resultText(s.updates(), "p1")).toContain("not a public address");
    } finally {
      s.close();
    }
  });

  test("read-only fetches only hosts a rule already allows; a 12 MB page gives a bounded result", async () => {
    const answers = answering("allow_once");
    const before = forbidden.requests.length;
    const base = `http://127.0.0.1:${site.port}`;
    const s = await startScenario(runtime, {
      script: [fetchCall("h1", { url: `${base}/huge` }), fetchCall("h2", { url: `${base}/huge`, offset: 40_000, maxLength: 100 }), fetchCall("o1", { url: `http://127.0.0.1:${forbidden.port}/` }), done],
      args: ["--approval-mode", "read-only"],
      settings: { fetch: { allowHosts: [`127.0.0.1:${site.port}`, `127.0.0.1:${forbidden.port}`] }, permissionRules: [{ action: "allow", host: `127.0.0.1:${site.port}` }] },
      ...answers,
    });
    try {
      await s.prompt("go");
      expect(answers.requests).toHaveLength(0);
      const huge = resultText(s.updates(), "h1");
      expect(huge.length).toBeLessThan(42_000);
      expect(huge).toContain("filler text of a very long page");
      expect(huge).toContain("offset: 40000");
      expect(huge).toContain("Only the first 5 MiB");
      const next = resultText(s.updates(), "h2");
      expect(next).toContain("Characters 40000–40100");
      expect(resultText(s.updates(), "o1")).toContain("read-only mode");
      expect(forbidden.requests.length).toBe(before);
    } finally {
      s.close();
    }
  });
});
