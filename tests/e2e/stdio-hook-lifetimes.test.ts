/**
 * Hooks live no longer than the agent, over stdio on each runtime: a hook
 * (and what it started) running when the agent is killed outright (SIGKILL)
 * is ended, as background commands are; a SessionEnd hook that would run
 * for an hour does not hold the session's close — the agent exits, and the
 * hook is ended.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { group, script, writeHooks } from "../helpers/hook-scripts.ts";
import { processGone } from "../helpers/processes.ts";
import { fakeModelSuite } from "../helpers/rewind-requests.ts";
import { startAgent } from "../helpers/session-agent.ts";

describe.each(RUNTIMES)("hooks' lifetimes on %s", (runtime) => {
  const suite = fakeModelSuite();

  /** A user home with `hooks`, and the folder its scripts write their pids to. */
  function hookHome(name: string, hooks: (scripts: string, state: string) => Record<string, unknown>): { home: string; state: string } {
    const home = join(suite.sandbox.root, `${name}-${runtime}`);
    const state = join(home, "state");
    mkdirSync(state, { recursive: true });
    writeHooks(join(home, ".claude", "settings.json"), hooks(join(home, "hook-scripts"), state));
    return { home, state };
  }
  const pidIn = (file: string) => Number(readFileSync(file, "utf8"));

  test("a hook running when the agent is killed outright is ended, with the child it started", async () => {
    const { home, state } = hookHome("killed", (scripts, state) => ({
      PreToolUse: [group(script(scripts, "hold.sh", `cat >/dev/null; sleep 300 & echo $! > '${state}/child.pid'; echo $$ > '${state}/hook.pid'; wait`), "Bash", 600)],
    }));
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"], env: { HOME: home } });
    const { sessionId } = await agent.newSession();
    suite.server.push({ toolCalls: [{ name: "bash", input: { command: "echo never" } }] });
    void agent.prompt(sessionId, "run it").catch(() => undefined);
    await waitFor(() => existsSync(join(state, "hook.pid")) && existsSync(join(state, "child.pid")), 30_000, "the hook to start");
    const [hook, child] = [pidIn(join(state, "hook.pid")), pidIn(join(state, "child.pid"))];
    expect(processGone(hook)).toBe(false);
    await agent.kill();
    await waitFor(() => processGone(hook) && processGone(child), 20_000, "the hook and its child to be ended");
  }, 60_000);

  test("a SessionEnd hook of an hour does not hold the close: the agent exits and the hook is ended", async () => {
    const { home, state } = hookHome("ending", (scripts, state) => ({
      SessionEnd: [group(script(scripts, "end.sh", `cat >/dev/null; echo $$ > '${state}/end.pid'; sleep 3600`), undefined, 3600)],
    }));
    const agent = await startAgent(runtime, suite.sandbox, { args: ["--approval-mode", "yolo"], env: { HOME: home } });
    const { sessionId } = await agent.newSession();
    suite.server.push({ text: "hello" });
    expect((await agent.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
    // The end of input closes the session: SessionEnd starts, and the agent still exits (within the test's bound, not the hook's hour).
    expect(await agent.stop()).toBe(0);
    expect(existsSync(join(state, "end.pid"))).toBe(true);
    await waitFor(() => processGone(pidIn(join(state, "end.pid"))), 20_000, "the SessionEnd hook to be ended");
  }, 60_000);
});
