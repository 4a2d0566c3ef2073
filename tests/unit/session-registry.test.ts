import { describe, expect, test } from "bun:test";
import type { LiveSession } from "../../src/sessions/live-session.ts";
import { SessionRegistry } from "../../src/sessions/session-registry.ts";

function fakeSession(id: string): LiveSession {
  return { agent: { id } } as unknown as LiveSession;
}

describe("SessionRegistry.getOrOpen", () => {
  test("concurrent callers share one successful opening", async () => {
    const registry = new SessionRegistry();
    let opens = 0;
    const open = async () => {
      opens += 1;
      await new Promise((r) => setTimeout(r, 10));
      return fakeSession("s1");
    };
    const [a, b] = await Promise.all([registry.getOrOpen("s1", open), registry.getOrOpen("s1", open)]);
    expect(a).toBe(b);
    expect(opens).toBe(1);
  });

  test("a caller waiting on another's opening does not inherit its failure", async () => {
    const registry = new SessionRegistry();
    const first = registry.getOrOpen("s1", async () => {
      await new Promise((r) => setTimeout(r, 10));
      throw new Error("the first caller's cwd does not match");
    });
    let secondOpened = 0;
    const second = registry.getOrOpen("s1", async () => {
      secondOpened += 1;
      return fakeSession("s1");
    });
    await expect(first).rejects.toThrow("the first caller's cwd does not match");
    const live = await second;
    expect(live.agent.id).toBe("s1");
    expect(secondOpened).toBe(1);
    expect(registry.get("s1")).toBe(live);
  });

  test("every caller gets its own failure when every opening fails, and nothing loops", async () => {
    const registry = new SessionRegistry();
    const attempts: string[] = [];
    const failing = (who: string) => async () => {
      attempts.push(who);
      await new Promise((r) => setTimeout(r, 5));
      throw new Error(`${who} failed`);
    };
    const results = await Promise.allSettled([registry.getOrOpen("s1", failing("a")), registry.getOrOpen("s1", failing("b")), registry.getOrOpen("s1", failing("c"))]);
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as Error).message : "ok"))).toEqual(["a failed", "b failed", "c failed"]);
    expect(attempts.sort()).toEqual(["a", "b", "c"]);
    expect(registry.get("s1")).toBeUndefined();
  });
});
