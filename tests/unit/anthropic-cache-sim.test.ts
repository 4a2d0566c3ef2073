/**
 * The simulation of Anthropic's prompt cache that the e2e suite and the cost
 * benchmark bill by: it must read only what was written before, at or up to
 * 20 blocks before a breakpoint, and never cache a prefix under 1,024 tokens.
 */
import { describe, expect, test } from "bun:test";
import { AnthropicCacheSim, billedInput } from "../helpers/anthropic-cache-sim.ts";

const EPHEMERAL = { type: "ephemeral" };
const big = (label: string) => `${label} `.repeat(2000);
const text = (t: string, cached = false) => ({ type: "text", text: t, ...(cached ? { cache_control: EPHEMERAL } : {}) });

function body(system: string, messages: string[], cachedAt: number[] = [messages.length - 1]) {
  return {
    system: [text(system, true)],
    messages: messages.map((m, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: [text(m, cachedAt.includes(i))] })),
  };
}

describe("AnthropicCacheSim", () => {
  test("a request that repeats the last one's prefix reads it and writes only what is new", () => {
    const sim = new AnthropicCacheSim();
    const first = sim.bill(body(big("system"), [big("question")]));
    expect(first.cacheRead).toBe(0);
    expect(first.input).toBe(0);
    expect(first.breakpoints).toBe(2);
    const firstTotal = first.cacheWrite;
    const second = sim.bill(body(big("system"), [big("question"), "answer", big("more")]));
    expect(second.cacheRead).toBe(firstTotal);
    expect(second.cacheWrite).toBeGreaterThan(0);
    expect(second.input).toBe(0);
    expect(billedInput(second)).toBeCloseTo(second.cacheRead * 0.1 + second.cacheWrite * 1.25, 6);
  });

  test("a changed system prompt reads nothing; moving a breakpoint changes no content", () => {
    const sim = new AnthropicCacheSim();
    sim.bill(body(big("system"), [big("question")]));
    expect(sim.bill(body(big("other system"), [big("question")])).cacheRead).toBe(0);
    // The same content with the message's breakpoint gone still reads at the system prompt's breakpoint.
    const moved = sim.bill(body(big("system"), [big("question"), "answer"], [1]));
    expect(moved.cacheRead).toBeGreaterThan(0);
  });

  test("without breakpoints nothing is cached; under 1,024 tokens nothing is written", () => {
    const sim = new AnthropicCacheSim();
    const plain = { system: big("system"), messages: [{ role: "user", content: big("question") }] };
    expect(sim.bill(plain)).toMatchObject({ cacheRead: 0, cacheWrite: 0, breakpoints: 0 });
    expect(sim.bill(plain)).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
    const small = body("short system", ["short question"]);
    expect(sim.bill(small).cacheWrite).toBe(0);
    expect(sim.bill(small).cacheRead).toBe(0);
  });

  test("a write more than 20 blocks before every breakpoint is not found", () => {
    const sim = new AnthropicCacheSim();
    const start = [big("question")];
    sim.bill({ messages: [{ role: "user", content: [text(start[0]!, true)] }] });
    const many = Array.from({ length: 25 }, (_, i) => text(`block ${i}`));
    const far = { messages: [{ role: "user", content: [text(start[0]!), ...many.slice(0, -1), { ...many.at(-1)!, cache_control: EPHEMERAL }] }] };
    expect(sim.bill(far).cacheRead).toBe(0);
    const near = { messages: [{ role: "user", content: [text(start[0]!), ...many.slice(0, 10), { ...many[10]!, cache_control: EPHEMERAL }] }] };
    expect(sim.bill(near).cacheRead).toBeGreaterThan(0);
  });

  test("1-hour breakpoints bill writes at 2x", () => {
    const sim = new AnthropicCacheSim();
    const usage = sim.bill({ system: [{ type: "text", text: big("system"), cache_control: { type: "ephemeral", ttl: "1h" } }], messages: [] });
    expect(usage.longTtl).toBe(true);
    expect(billedInput(usage)).toBe(usage.cacheWrite * 2);
  });
});
