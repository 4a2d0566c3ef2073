/**
 * Steering in the engine: a message handed to a running turn joins the
 * history right before the next model call, after every tool result of the
 * step (never between a call and its result), once; a reply that would end
 * the turn while one waits gets another call, within the request cap; what a
 * stopped turn did not take waits for `landSteering`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentSession } from "../../src/engine/session.ts";
import type { EngineEvent } from "../../src/engine/events.ts";
import { createFauxModel } from "../../src/models/faux.ts";
import { FauxScript, type FauxStep } from "../../src/models/faux-script.ts";
import { catalogInfo } from "../../src/models/catalog.ts";
import { builtinTools } from "../../src/tools/builtin.ts";
import { createLocalWorkspace } from "../../src/tools/local-workspace.ts";
import type { ModelMessage } from "../../src/models/types.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "acp-edge-steering-"));
  writeFileSync(join(dir, "notes.txt"), "alpha\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function session(steps: FauxStep[], maxTurnRequests = 10) {
  return new AgentSession({
    id: "sess_steer",
    workspace: await createLocalWorkspace(dir, []),
    tools: builtinTools,
    model: createFauxModel(catalogInfo("faux", "script"), new FauxScript(steps)),
    thinking: "off",
    systemPrompt: "test",
    maxTurnRequests,
  });
}

/** One line per message: role, and the text of user messages. */
function shape(history: readonly ModelMessage[]): string[] {
  return history.map((m) => (m.role === "user" ? `user:${m.content.map((p) => (p.type === "text" ? p.text : "")).join("")}` : m.role === "tool" ? `tool:${m.toolCallId}` : "assistant"));
}

const text = (t: string) => [{ type: "text" as const, text: t }];

describe("steering a running turn", () => {
  test("a message steered while the step's first tool runs lands after every result of the step, once, and is reported", async () => {
    let seen: readonly ModelMessage[] = [];
    const s = await session([
      { toolCalls: [{ id: "a", name: "read", input: { path: "notes.txt" } }, { id: "b", name: "ls", input: { path: "." } }] },
      (messages) => ((seen = [...messages]), { text: "heard you" }),
    ]);
    const events: EngineEvent[] = [];
    const sink = (event: EngineEvent) => {
      events.push(event);
      if (event.type === "tool_call_update" && event.toolCallId === "a" && event.status === "in_progress") {
        s.steer(text("first"));
        s.steer(text("second"));
      }
    };
    expect(await s.prompt(text("go"), sink)).toBe("end_turn");
    expect(shape(seen)).toEqual(["user:go", "assistant", "tool:a", "tool:b", "user:first", "user:second"]);
    expect(shape(s.history)).toEqual(["user:go", "assistant", "tool:a", "tool:b", "user:first", "user:second", "assistant"]);
    const steered = events.filter((e) => e.type === "message" && e.steered);
    expect(steered).toHaveLength(2);
    expect(s.steeringWaiting).toEqual({ messages: 0, chars: 0 });
  });

  test("a message that arrives during the last reply gets another model call; at the request cap the turn stops instead", async () => {
    const s = await session([{ text: "finished" }, { text: "and that too" }]);
    const sink = (event: EngineEvent) => {
      if (event.type === "text_delta" && s.steeringWaiting.messages === 0 && s.history.length === 1) s.steer(text("wait"));
    };
    expect(await s.prompt(text("start"), sink)).toBe("end_turn");
    expect(shape(s.history)).toEqual(["user:start", "assistant", "user:wait", "assistant"]);

    const capped = await session([{ text: "finished" }], 1);
    const capSink = (event: EngineEvent) => {
      if (event.type === "text_delta" && capped.steeringWaiting.messages === 0) capped.steer(text("too late"));
    };
    expect(await capped.prompt(text("start"), capSink)).toBe("max_turn_requests");
    // Not lost: it waits for the owner to add it to the conversation.
    expect(capped.steeringWaiting.messages).toBe(1);
    const landed: EngineEvent[] = [];
    await capped.landSteering((e) => void landed.push(e));
    expect(shape(capped.history)).toEqual(["user:start", "assistant", "user:too late"]);
    expect(landed).toMatchObject([{ type: "message", steered: true }]);
  });

  test("a cancelled turn takes no steered message; landSteering adds it, and refuses while a turn runs", async () => {
    const s = await session([{ text: "slow ".repeat(50), delayMs: 5 }]);
    const sink = (event: EngineEvent) => {
      if (event.type === "text_delta" && s.steeringWaiting.messages === 0) {
        s.steer(text("never sent"));
        s.cancel();
      }
    };
    const turn = s.prompt(text("start"), sink);
    await expect(s.landSteering(() => undefined)).rejects.toThrow("already processing");
    expect(await turn).toBe("cancelled");
    // What the model had said before the cancel stays; the steered message did not join.
    expect(shape(s.history)).toEqual(["user:start", "assistant"]);
    await s.landSteering(() => undefined);
    expect(shape(s.history)).toEqual(["user:start", "assistant", "user:never sent"]);
  });
});
