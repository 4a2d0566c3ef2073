/**
 * `_session/steering` params: the forms claude-agent-acp and codex-acp
 * clients send are taken; anything else is -32602 naming the field, without
 * echoing a hostile value whole. A seeded run of mutated params checks that
 * nothing but -32602 (or a parse) ever comes out.
 */
import { describe, expect, test } from "bun:test";
import { parseSteeringParams } from "../../src/acp/params/steering-params.ts";
import { RequestError } from "../../src/acp/sdk.ts";

const text = [{ type: "text", text: "hi" }];

function refusal(raw: unknown): RequestError {
  try {
    parseSteeringParams(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe(-32602);
    return error as RequestError;
  }
  throw new Error(`accepted ${JSON.stringify(raw).slice(0, 200)}`);
}

describe("parseSteeringParams", () => {
  test("takes every content block kind and the idle behaviours, null as absent", () => {
    expect(parseSteeringParams({ sessionId: "s", prompt: text })).toEqual({ sessionId: "s", prompt: text });
    expect(parseSteeringParams({ sessionId: "s", prompt: text, _meta: { steering: { idleBehavior: "promptRequired" }, other: 1 } })).toMatchObject({ idleBehavior: "promptRequired" });
    for (const meta of [null, {}, { steering: null }, { steering: {} }, { steering: { idleBehavior: null } }]) {
      expect(parseSteeringParams({ sessionId: "s", prompt: text, _meta: meta }).idleBehavior).toBeUndefined();
    }
    const blocks = [
      { type: "text", text: "t", annotations: { priority: 1 } },
      { type: "image", data: "AAAA", mimeType: "image/png", uri: null },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///a", name: "a", mimeType: null },
      { type: "resource", resource: { uri: "file:///b", text: "b" } },
      { type: "resource", resource: { uri: "file:///c", blob: "AAAA", mimeType: "application/octet-stream" } },
    ];
    expect(parseSteeringParams({ sessionId: "s", prompt: blocks }).prompt.map((b) => b.type)).toEqual(["text", "image", "audio", "resource_link", "resource", "resource"]);
  });

  test("refuses what it cannot account for", () => {
    expect(refusal({ sessionId: "s", prompt: text, _meta: { steering: { idleBehavior: "startNewTurn" } } }).message).toContain("idleBehavior");
    for (const bad of [
      undefined,
      null,
      [],
      "x",
      {},
      { sessionId: 1, prompt: text },
      { sessionId: "s" },
      { sessionId: "s", prompt: [] },
      { sessionId: "s", prompt: "hi" },
      { sessionId: "s", prompt: [{ type: "video", data: "x" }] },
      { sessionId: "s", prompt: [{ type: "text" }] },
      { sessionId: "s", prompt: [{ type: "resource", resource: { uri: 5 } }] },
      { sessionId: "s", prompt: text, _meta: "promptRequired" },
      { sessionId: "s", prompt: text, _meta: { steering: "promptRequired" } },
      { sessionId: "s", prompt: text, _meta: { steering: { idleBehavior: 1 } } },
      { sessionId: "s", prompt: text, _meta: { steering: { idleBehavior: "PROMPTREQUIRED" } } },
    ]) {
      refusal(bad);
    }
  });

  test("a hostile value is not echoed back whole", () => {
    const huge = "x".repeat(1 << 20);
    for (const raw of [{ sessionId: "s", prompt: [{ type: huge }] }, { sessionId: "s", prompt: text, _meta: { steering: { idleBehavior: huge } } }, { sessionId: huge, prompt: 7 }]) {
      expect(refusal(raw).message.length).toBeLessThan(1000);
    }
  });

  test("seeded mutations: parsed, or refused -32602, never anything else", () => {
    let seed = 20261201;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const values: unknown[] = [null, 0, -1, 1.5, "", "x", "promptRequired", true, [], {}, [{}], { type: "text", text: "t" }, { __proto__: { polluted: true } }];
    const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)]!;
    for (let i = 0; i < 5000; i++) {
      const raw: Record<string, unknown> = { sessionId: "s", prompt: [{ type: "text", text: "t" }], _meta: { steering: { idleBehavior: "promptRequired" } } };
      const paths = [["sessionId"], ["prompt"], ["_meta"], ["_meta", "steering"], ["_meta", "steering", "idleBehavior"], ["prompt", "0"], ["prompt", "0", "type"], ["prompt", "0", "text"]];
      for (let m = 0; m < 1 + Math.floor(rand() * 3); m++) {
        const path = pick(paths);
        let target: any = raw;
        for (const key of path.slice(0, -1)) target = target && typeof target === "object" ? target[key] : undefined;
        if (target && typeof target === "object") target[path.at(-1)!] = pick(values);
      }
      try {
        const parsed = parseSteeringParams(raw);
        expect(typeof parsed.sessionId).toBe("string");
        expect(parsed.prompt.length).toBeGreaterThan(0);
        expect([undefined, "promptRequired"]).toContain(parsed.idleBehavior);
      } catch (error) {
        expect((error as RequestError).code).toBe(-32602);
      }
    }
  });
});
