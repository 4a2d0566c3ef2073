/**
 * The prompt queue: first come first served, bounded by count and by
 * characters (one prompt always fits an empty queue), and told once each
 * whether its turn came or it was dropped.
 */
import { describe, expect, test } from "bun:test";
import { PromptQueue, type Waiting } from "../../src/sessions/turns/prompt-queue.ts";

function entry(clientId: string, size = 1): Waiting & { outcomes: boolean[] } {
  const outcomes: boolean[] = [];
  return { clientId, size, outcomes, settle: (started) => void outcomes.push(started) };
}

describe("PromptQueue", () => {
  test("hands out entries in arrival order", () => {
    const queue = new PromptQueue(4);
    const [a, b, c] = [entry("x"), entry("y"), entry("x")];
    for (const e of [a, b, c]) expect(queue.add(e)).toBe(true);
    expect(queue.next()).toBe(a);
    expect(queue.remove(b)).toBe(true);
    expect(queue.remove(b)).toBe(false);
    expect(queue.next()).toBe(c);
    expect(queue.next()).toBeUndefined();
    expect(queue.size).toBe(0);
  });

  test("refuses past the count bound and past the character budget; a lone large prompt always fits", () => {
    const counted = new PromptQueue(2, 1000);
    expect(counted.add(entry("a"))).toBe(true);
    expect(counted.add(entry("a"))).toBe(true);
    expect(counted.add(entry("a"))).toBe(false);
    expect(counted.size).toBe(2);

    const budget = new PromptQueue(16, 100);
    expect(budget.add(entry("a", 5000))).toBe(true);
    expect(budget.add(entry("a", 1))).toBe(false);
    budget.next();
    expect(budget.add(entry("a", 60))).toBe(true);
    expect(budget.add(entry("a", 40))).toBe(true);
    expect(budget.add(entry("a", 1))).toBe(false);
    const dropped = entry("b", 10);
    budget.drop();
    expect(budget.add(dropped)).toBe(true);
    expect(budget.remove(dropped)).toBe(true);
    // Removing gave its characters back: the budget is whole again.
    expect(budget.add(entry("a", 100))).toBe(true);
  });

  test("drop tells every dropped entry once, all of them or one client's", () => {
    const queue = new PromptQueue(8);
    const [a, b, c] = [entry("alice"), entry("bob"), entry("alice")];
    for (const e of [a, b, c]) queue.add(e);
    queue.drop("alice");
    expect(a.outcomes).toEqual([false]);
    expect(c.outcomes).toEqual([false]);
    expect(b.outcomes).toEqual([]);
    expect(queue.size).toBe(1);
    queue.drop();
    expect(b.outcomes).toEqual([false]);
    expect(queue.size).toBe(0);
  });
});
