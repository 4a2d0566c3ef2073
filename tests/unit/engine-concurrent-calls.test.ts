/**
 * Calls of a concurrent tool (`task`) in one model reply run at the same
 * time, at most 4 at once, and their results join the history in call
 * order; a call of any other tool waits for them and runs alone. A cancel
 * while they run gives every unfinished call a cancelled result.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { AgentSession } from "../../src/engine/session.ts";
import { catalogInfo } from "../../src/models/catalog.ts";
import { createFauxModel } from "../../src/models/faux.ts";
import { FauxScript, type FauxStep } from "../../src/models/faux-script.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import type { ToolDefinition } from "../../src/tools/types.ts";

interface Probe {
  tool: ToolDefinition;
  started: string[];
  maxActive: number;
}

/** A tool whose calls wait until `open` says so; it records how many ran at once. */
function probe(name: string, concurrent: boolean, open: (active: number, release: () => void) => void): Probe {
  let active = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const state: Probe = {
    started: [],
    maxActive: 0,
    tool: {
      name,
      description: "probe",
      promptSnippet: "probe",
      schema: v.object({ n: v.number() }),
      kind: "other",
      concurrent,
      describe: (input: { n: number }) => ({ title: `${name} ${input.n}`, locations: [] }),
      async execute(input: { n: number }, { signal }) {
        active += 1;
        state.started.push(`${name}${input.n}`);
        state.maxActive = Math.max(state.maxActive, active);
        open(active, release);
        await new Promise<void>((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          gate.then(resolve);
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
        active -= 1;
        return { content: [{ type: "text", text: `${name}${input.n} done` }] };
      },
    } as ToolDefinition,
  };
  return state;
}

async function session(steps: FauxStep[], tools: ToolDefinition[]) {
  return new AgentSession({
    id: "sess_concurrent",
    workspace: await createLocalWorkspace(mkdtempSync(join(tmpdir(), "acp-edge-concurrent-")), []),
    tools,
    model: createFauxModel(catalogInfo("faux", "script"), new FauxScript(steps)),
    thinking: "off",
    systemPrompt: "test",
    maxTurnRequests: 5,
  });
}

describe("concurrent tool calls", () => {
  test("six concurrent calls run four at a time, results in call order; a plain call after them runs alone", async () => {
    // The gate opens once four run at once: unbounded, all six would have started by then.
    const task = probe("task", true, (active, release) => active >= 4 && release());
    const plain = probe("plain", false, (_active, release) => release());
    const calls = [1, 2, 3, 4, 5, 6].map((n) => ({ id: `t${n}`, name: "task", input: { n } }));
    const s = await session([{ toolCalls: [...calls, { id: "p1", name: "plain", input: { n: 1 } }] }, { text: "end" }], [task.tool, plain.tool]);
    expect(await s.prompt([{ type: "text", text: "go" }], () => undefined)).toBe("end_turn");
    expect(task.maxActive).toBe(4);
    expect(task.started).toHaveLength(6);
    const results = s.history.filter((m) => m.role === "tool").map((m) => (m.role === "tool" ? m.toolCallId : ""));
    expect(results).toEqual(["t1", "t2", "t3", "t4", "t5", "t6", "p1"]);
  });

  test("a cancel while concurrent calls run gives every unfinished call a cancelled result", async () => {
    let s!: AgentSession;
    const task = probe("task", true, (active) => active >= 2 && s.cancel());
    s = await session([{ toolCalls: [1, 2, 3].map((n) => ({ id: `t${n}`, name: "task", input: { n } })) }, { text: "never" }], [task.tool]);
    expect(await s.prompt([{ type: "text", text: "go" }], () => undefined)).toBe("cancelled");
    const results = s.history.filter((m) => m.role === "tool");
    expect(results.map((m) => (m.role === "tool" ? m.toolCallId : "")).sort()).toEqual(["t1", "t2", "t3"]);
    for (const m of results) expect(m.role === "tool" && m.isError && JSON.stringify(m.content)).toContain("Cancelled");
  });
});
