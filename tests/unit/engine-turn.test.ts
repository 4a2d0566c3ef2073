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
  dir = mkdtempSync(join(tmpdir(), "acp-edge-engine-"));
  writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function session(steps: FauxStep[], maxTurnRequests = 10) {
  return new AgentSession({
    id: "sess_test",
    workspace: await createLocalWorkspace(dir, []),
    tools: builtinTools,
    model: createFauxModel(catalogInfo("faux", "script"), new FauxScript(steps)),
    thinking: "medium",
    systemPrompt: "test",
    maxTurnRequests,
  });
}

function collect(): { events: EngineEvent[]; sink: (e: EngineEvent) => void } {
  const events: EngineEvent[] = [];
  return { events, sink: (e) => void events.push(e) };
}

describe("AgentSession turns", () => {
  test("streams text and thinking with one message id per message kind", async () => {
    const s = await session([{ thinking: "hmm, let me think", text: "hello there, friend" }]);
    const { events, sink } = collect();
    expect(await s.prompt([{ type: "text", text: "hi" }], sink)).toBe("end_turn");
    const text = events.filter((e) => e.type === "text_delta");
    const thought = events.filter((e) => e.type === "thinking_delta");
    expect(text.map((e) => (e.type === "text_delta" ? e.text : "")).join("")).toBe("hello there, friend");
    expect(thought.map((e) => (e.type === "thinking_delta" ? e.text : "")).join("")).toBe("hmm, let me think");
    expect(new Set(text.map((e) => (e.type === "text_delta" ? e.messageId : ""))).size).toBe(1);
    expect(new Set(thought.map((e) => (e.type === "thinking_delta" ? e.messageId : ""))).size).toBe(1);
    expect(text[0]?.type === "text_delta" && thought[0]?.type === "thinking_delta" && text[0].messageId !== thought[0].messageId).toBe(true);
    expect(events.at(-1)?.type).toBe("message");
    expect(events.some((e) => e.type === "usage")).toBe(true);
  });

  test("runs a tool call and feeds the result back to the model", async () => {
    let seen: readonly ModelMessage[] = [];
    const s = await session([
      { toolCalls: [{ id: "call_1", name: "read", input: { path: "notes.txt" } }] },
      (messages) => {
        seen = messages;
        return { text: "done" };
      },
    ]);
    const { events, sink } = collect();
    expect(await s.prompt([{ type: "text", text: "read it" }], sink)).toBe("end_turn");
    const statuses = events.filter((e) => e.type === "tool_call" || e.type === "tool_call_update").map((e) => (e.type === "tool_call" ? "pending" : e.status));
    expect(statuses).toEqual(["pending", "in_progress", "completed"]);
    const call = events.find((e) => e.type === "tool_call");
    expect(call?.type === "tool_call" && call.title).toBe("Read notes.txt");
    const result = seen.find((m) => m.role === "tool");
    expect(result?.role === "tool" && result.content[0]?.type === "text" && result.content[0].text).toBe("alpha\nbeta");
    expect(s.history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  test("unknown tools and invalid arguments fail the call, not the turn", async () => {
    const s = await session([
      { toolCalls: [{ id: "a", name: "nope", input: {} }, { id: "b", name: "read", input: { path: 42 } }] },
      { text: "recovered" },
    ]);
    const { events, sink } = collect();
    expect(await s.prompt([{ type: "text", text: "x" }], sink)).toBe("end_turn");
    const failed = events.filter((e) => e.type === "tool_call_update" && e.status === "failed");
    expect(failed).toHaveLength(2);
    const texts = failed.map((e) => (e.type === "tool_call_update" && e.content?.[0]?.type === "text" ? e.content[0].text : ""));
    expect(texts[0]).toContain("Tool nope not found");
    expect(texts[1]).toContain("Invalid arguments for read");
  });

  test("stops with max_turn_requests when the model keeps calling tools", async () => {
    const loop = { toolCalls: [{ name: "ls", input: {} }] };
    const s = await session([loop, loop, loop, loop], 2);
    expect(await s.prompt([{ type: "text", text: "go" }], () => undefined)).toBe("max_turn_requests");
    expect(s.history.filter((m) => m.role === "assistant")).toHaveLength(2);
  });

  test("maps max_tokens and refusal", async () => {
    expect(await (await session([{ text: "cut", stop: "max_tokens" }])).prompt([{ type: "text", text: "x" }], () => undefined)).toBe("max_tokens");
    expect(await (await session([{ text: "no", stop: "refusal" }])).prompt([{ type: "text", text: "x" }], () => undefined)).toBe("refusal");
  });

  test("cancel ends a streaming turn as cancelled and keeps the partial reply", async () => {
    const s = await session([{ text: "a long answer that streams slowly", delayMs: 20 }]);
    const { events, sink } = collect();
    const turn = s.prompt([{ type: "text", text: "x" }], sink);
    await Bun.sleep(70);
    expect(s.running).toBe(true);
    s.cancel();
    expect(await turn).toBe("cancelled");
    expect(s.running).toBe(false);
    const partial = s.history.at(-1);
    expect(partial?.role).toBe("assistant");
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(0);
  });

  test("a provider error rejects the prompt and the session stays usable", async () => {
    const s = await session([{ error: "overloaded" }, { text: "fine now" }]);
    await expect(s.prompt([{ type: "text", text: "x" }], () => undefined)).rejects.toThrow("faux: overloaded");
    expect(s.running).toBe(false);
    expect(await s.prompt([{ type: "text", text: "again" }], () => undefined)).toBe("end_turn");
  });

  test("a second prompt while one runs is refused", async () => {
    const s = await session([{ text: "slow", delayMs: 30 }, { text: "x" }]);
    const first = s.prompt([{ type: "text", text: "1" }], () => undefined);
    await expect(s.prompt([{ type: "text", text: "2" }], () => undefined)).rejects.toThrow("already processing");
    expect(await first).toBe("end_turn");
  });
});
