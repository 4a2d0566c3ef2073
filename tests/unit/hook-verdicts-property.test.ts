/**
 * A seeded property test of how hook settings and hook outcomes are read.
 * Settings: random `hooks` values (wrong types, unknown events, hook types
 * other than `command`, huge timeouts, matchers that are catastrophic for a
 * backtracking engine or not runnable at all) never throw, and every command
 * kept is well formed; a kept matcher answers on a long tool name at once.
 * Outcomes: random exit codes and stdout (plain text, JSON with every
 * decision field, broken JSON) from user and project hooks, merged: a block
 * always wins, a project hook's `allow` never yields an allow, and any `ask`
 * beats an `allow`. Set ACP_EDGE_HOOK_SEED to replay a seed.
 */
import { expect, test } from "bun:test";
import { HOOK_EVENTS, readHookCommands, type HookCommand } from "../../src/sessions/hooks/hook-config.ts";
import { mergeVerdicts, readOutcome } from "../../src/sessions/hooks/hook-outcome.ts";
import { Prng } from "../fuzz/transport-prng.ts";

/** The fuzzers' seeded generator, as `next()` (a float in [0, 1)) and `pick`. */
function generator(seed: number) {
  const prng = new Prng(seed);
  return { next: () => prng.float(), pick: <T>(items: readonly T[]): T => prng.pick(items) };
}

const SEED = Number(process.env.ACP_EDGE_HOOK_SEED ?? 20261207);
const CASES = 500;

const MATCHERS = ["", "*", "Bash", "Edit|Write", "Notebook.*", "(a+)+$", "(a|aa)*b", "^(a|a?)+$", "(x+x+)+y", "(B)\\1", "(?<=a)b", "[", "mcp__.*__write", "é|ö", "a{1000}{1000}"];
const WEIRD = [null, 1, true, "text", [], {}, [null], [{}], { hooks: "x" }, -1, 1e308, Number.NaN];

function randomHooks(rng: ReturnType<typeof generator>): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  const events = [...HOOK_EVENTS, "PostToolUseFailure", "__proto__", "constructor", ""];
  for (let i = 0; i < 1 + Math.floor(rng.next() * 4); i++) {
    const groups = Array.from({ length: Math.floor(rng.next() * 3) }, () =>
      rng.next() < 0.15
        ? rng.pick(WEIRD)
        : {
            ...(rng.next() < 0.8 ? { matcher: rng.next() < 0.9 ? rng.pick(MATCHERS) : rng.pick(WEIRD) } : {}),
            hooks: rng.next() < 0.1 ? rng.pick(WEIRD) : Array.from({ length: Math.floor(rng.next() * 3) }, () =>
              rng.next() < 0.1 ? rng.pick(WEIRD) : {
                type: rng.next() < 0.85 ? "command" : rng.pick(["prompt", "agent", 3, null]),
                command: rng.next() < 0.9 ? `echo ${Math.floor(rng.next() * 1000)}` : rng.pick(["", "   ", "x".repeat(9000), 5]),
                ...(rng.next() < 0.5 ? { timeout: rng.pick([1, 30, 0, -5, 1e9, Number.POSITIVE_INFINITY, "10", 0.5]) } : {}),
              }),
          },
    );
    hooks[rng.pick(events)] = rng.next() < 0.1 ? rng.pick(WEIRD) : groups;
  }
  return hooks;
}

test("random hook settings never throw; what is kept is well formed and its matcher answers at once", () => {
  const rng = generator(SEED);
  const longName = `mcp__${"a".repeat(58)}`;
  for (let i = 0; i < CASES; i++) {
    const notices: string[] = [];
    const hooks = randomHooks(rng);
    const commands = readHookCommands({ path: "/p/.claude/settings.json", origin: rng.pick(["user", "project"] as const), hooks, text: "" }, notices);
    for (const command of commands) {
      expect(HOOK_EVENTS).toContain(command.event);
      expect(command.timeoutSeconds).toBeGreaterThan(0);
      expect(command.timeoutSeconds).toBeLessThanOrEqual(3600);
      expect(command.command.trim()).not.toBe("");
      // Linear-time matching: a name built to make backtracking explode is answered like any other.
      expect(typeof command.matches([longName, "Bash"])).toBe("boolean");
    }
    for (const notice of notices) expect(notice.length).toBeLessThan(1000);
  }
});

const STDOUTS = [
  "", "plain text", "{", '{"decision": "block", ', "[]", "null", '"str"',
  JSON.stringify({ decision: "block", reason: "no" }),
  JSON.stringify({ decision: "approve" }),
  JSON.stringify({ continue: false, stopReason: "halt" }),
  JSON.stringify({ hookSpecificOutput: { permissionDecision: "allow" } }),
  JSON.stringify({ hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "check" } }),
  JSON.stringify({ hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "never" } }),
  JSON.stringify({ hookSpecificOutput: { permissionDecision: "maybe", additionalContext: "ctx" } }),
  JSON.stringify({ systemMessage: "hello", suppressOutput: true }),
];

test("merged outcomes: a block always wins, a project hook never allows, an ask beats an allow", () => {
  const rng = generator(SEED + 1);
  for (let i = 0; i < CASES; i++) {
    const parts = Array.from({ length: 1 + Math.floor(rng.next() * 4) }, () => {
      const hook: HookCommand = {
        event: rng.pick(["PreToolUse", "UserPromptSubmit", "Stop"] as const),
        matcher: "*",
        matches: () => true,
        command: "x",
        timeoutSeconds: 60,
        origin: rng.pick(["user", "project"] as const),
        file: "/f",
      };
      const code = rng.pick([0, 0, 0, 1, 2, null]);
      const verdict = readOutcome(hook, { code, stdout: rng.pick(STDOUTS), stderr: rng.pick(["", "why"]), dropped: 0, timedOut: code === null && rng.next() < 0.5, cancelled: false });
      return { hook, verdict };
    });
    const merged = mergeVerdicts(parts);
    const blocked = parts.some((p) => p.verdict.block !== undefined);
    expect(merged.block !== undefined).toBe(blocked);
    const asks = parts.some((p) => p.verdict.permission?.decision === "ask");
    const userAllows = parts.some((p) => p.verdict.permission?.decision === "allow" && p.hook.origin === "user");
    if (asks) expect(merged.permission?.decision).toBe("ask");
    else if (userAllows) expect(merged.permission?.decision).toBe("allow");
    else expect(merged.permission).toBeUndefined();
  }
});
