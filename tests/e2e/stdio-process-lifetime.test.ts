/**
 * Nothing a command starts outlives its tool call: background jobs, nohup
 * and setsid children are gone when the call ends, times out or is
 * cancelled, and when the agent exits (stdin EOF, SIGTERM, `agent serve`
 * shutting down) — unconfined (`yolo`) and inside the sandbox (`auto`).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { acp, initialize } from "../helpers/acp-client.ts";
import { makeSandbox, RUNTIMES } from "../helpers/agent-process.ts";
import { waitFor } from "../helpers/expect-error.ts";
import { killProcessesWithEnv, processesWithEnv } from "../helpers/processes.ts";
import { finalStatus, startScenario, toolText, type Scenario } from "../helpers/scenario.ts";
import { connectWs, startServe, TOKEN } from "../helpers/serve-process.ts";

const SLEEPS = ["sleep 301", "sleep 302", "sleep 303"];
/** `yolo` runs commands unconfined, `auto` in the sandbox (its own process namespace). */
type Mode = "yolo" | "auto";
const CASES = RUNTIMES.flatMap((runtime) => (["yolo", "auto"] as const).map((mode) => [runtime, mode] as const));

/** A command leaving three kinds of children behind, all carrying this test's own marker in their environment. */
function escapingCommand(marker: string, rest: string): string {
  return `export ${marker}; sleep 301 & nohup sleep 303 & setsid sleep 302 & ${rest}`;
}

function uniqueMarker(): string {
  return `LIFETIME_TEST_MARK=${crypto.randomUUID()}`;
}

/** Starts an agent whose model runs `command` (with `timeout` seconds, if given), prompts it, and waits until the three sleeps run. */
async function startWithSleeps(runtime: (typeof RUNTIMES)[number], mode: Mode, marker: string, command: string, timeout?: number) {
  const input = { command: escapingCommand(marker, command), ...(timeout !== undefined ? { timeout } : {}) };
  const s = await startScenario(runtime, {
    script: [{ toolCalls: [{ id: "bg", name: "bash", input }] }, { text: "done" }],
    args: ["--approval-mode", mode],
  });
  const turn = s.prompt("run it");
  turn.catch(() => undefined);
  await waitFor(() => sleepsRunning(marker).length === 3, 10_000, "the three background sleeps to start");
  return { s, turn };
}

function sleepsRunning(marker: string): string[] {
  return processesWithEnv(marker)
    .map((p) => p.command)
    .filter((c) => SLEEPS.includes(c))
    .sort();
}

async function withCleanup(marker: string, body: () => Promise<void>, scenario: () => Scenario | undefined): Promise<void> {
  try {
    await body();
  } finally {
    scenario()?.close();
    killProcessesWithEnv(marker);
  }
}

describe.each(CASES)("process lifetime on %s in %s mode", (runtime, mode) => {
  test("a call that ends normally leaves no background, nohup or setsid child behind", async () => {
    const marker = uniqueMarker();
    let scenario: Scenario | undefined;
    await withCleanup(marker, async () => {
      const { s, turn } = await startWithSleeps(runtime, mode, marker, "while [ ! -e go ]; do sleep 0.05; done; echo finished");
      scenario = s;
      writeFileSync(join(s.sandbox.project, "go"), "");
      expect((await turn).stopReason).toBe("end_turn");
      expect(finalStatus(s.updates(), "bg")).toBe("completed");
      expect(toolText(s.updates(), "bg")).toContain("finished");
      expect(processesWithEnv(marker)).toEqual([]);
    }, () => scenario);
  }, 30_000);

  test("a call that times out leaves nothing behind", async () => {
    const marker = uniqueMarker();
    let scenario: Scenario | undefined;
    await withCleanup(marker, async () => {
      const { s, turn } = await startWithSleeps(runtime, mode, marker, "sleep 30", 3);
      scenario = s;
      expect((await turn).stopReason).toBe("end_turn");
      expect(toolText(s.updates(), "bg")).toContain("timed out");
      expect(processesWithEnv(marker)).toEqual([]);
    }, () => scenario);
  }, 30_000);

  test("a cancelled call leaves nothing behind", async () => {
    const marker = uniqueMarker();
    let scenario: Scenario | undefined;
    await withCleanup(marker, async () => {
      const { s, turn } = await startWithSleeps(runtime, mode, marker, "sleep 30");
      scenario = s;
      await s.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      expect((await turn).stopReason).toBe("cancelled");
      expect(processesWithEnv(marker)).toEqual([]);
    }, () => scenario);
  }, 30_000);

  test("the agent exiting on stdin EOF takes a running call's whole tree with it", async () => {
    const marker = uniqueMarker();
    let scenario: Scenario | undefined;
    await withCleanup(marker, async () => {
      const { s } = await startWithSleeps(runtime, mode, marker, "sleep 30");
      scenario = s;
      s.proc.child.stdin!.end();
      expect((await s.proc.exited).code).toBe(0);
      expect(processesWithEnv(marker)).toEqual([]);
    }, () => scenario);
  }, 30_000);

  test("the agent exiting on SIGTERM takes a running call's whole tree with it", async () => {
    const marker = uniqueMarker();
    let scenario: Scenario | undefined;
    await withCleanup(marker, async () => {
      const { s } = await startWithSleeps(runtime, mode, marker, "sleep 30");
      scenario = s;
      s.proc.child.kill("SIGTERM");
      expect((await s.proc.exited).code).toBe(0);
      expect(processesWithEnv(marker)).toEqual([]);
    }, () => scenario);
  }, 30_000);

  test("agent serve shutting down on SIGTERM takes a running call's whole tree with it", async () => {
    const marker = uniqueMarker();
    const sandbox = makeSandbox();
    const command = escapingCommand(marker, "sleep 30");
    const script = sandbox.write("script.json", JSON.stringify([{ toolCalls: [{ id: "bg", name: "bash", input: { command } }] }, { text: "done" }]));
    const server = await startServe(runtime, sandbox, { script, args: ["--model", "faux/script", "--approval-mode", mode] });
    try {
      const client = connectWs(`${server.wsUrl}/acp`, TOKEN);
      await initialize(client);
      const { sessionId } = await client.agent.request(acp.methods.agent.session.new, { cwd: sandbox.project, mcpServers: [] });
      client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "run it" }] }).catch(() => undefined);
      await waitFor(() => sleepsRunning(marker).length === 3, 10_000, "the three background sleeps to start");
      expect(await server.stop("SIGTERM")).toBe(0);
      expect(processesWithEnv(marker)).toEqual([]);
    } finally {
      server.proc.child.kill("SIGKILL");
      killProcessesWithEnv(marker);
      sandbox.cleanup();
    }
  }, 30_000);
});
