/**
 * The client matrix, a third-party library: `@mcpc-tech/acp-ai-provider`, the
 * AI SDK provider for ACP agents, used as its README says (`createACPProvider`
 * with the agent's command, then the AI SDK's `generateText` or
 * `streamText`). It spawns the agent over stdio on each runtime and runs a
 * tool turn; the tool result it hands to the AI SDK is the agent's
 * `rawOutput` (it reads `rawOutput ?? content`). Its `languageModel(id)`
 * switches the model with the older drafts' `session/set_model`, choosing from
 * the legacy `models` of `session/new`.
 */
import { describe, expect, test } from "bun:test";
import { createACPProvider } from "@mcpc-tech/acp-ai-provider";
import { generateText, streamText } from "ai";
import { agentCommand, RUNTIMES } from "../helpers/agent-process.ts";
import { ANSWER, NOTES, toolResultSeen, toolTurn, type ToolTurn } from "./tool-turn.ts";

function provider(runtime: (typeof RUNTIMES)[number], turn: ToolTurn) {
  const { command, args } = agentCommand(runtime, ["agent", "stdio"]);
  return createACPProvider({ command, args, env: turn.env, authMethodId: "acp-edge-credentials", session: { cwd: turn.sandbox.project, mcpServers: [] } });
}

describe.each(RUNTIMES)("the AI SDK provider for ACP agents on %s", (runtime) => {
  test("streamText: a tool turn whose tool result is the output the model got", async () => {
    const turn = await toolTurn();
    const acp = provider(runtime, turn);
    try {
      const parts: Array<{ type: string; [key: string]: unknown }> = [];
      const result = streamText({ model: acp.languageModel(), prompt: "count the apples", tools: acp.tools });
      for await (const part of result.fullStream) parts.push(part as (typeof parts)[number]);
      expect(await result.text).toBe(ANSWER);
      const toolResult = parts.find((p) => p.type === "tool-result");
      // rawOutput: the text the read tool gave the model, not a summary of it.
      expect(toolResult?.output).toEqual([{ type: "text", text: NOTES.trim() }]);
      expect(parts.find((p) => p.type === "tool-call")).toMatchObject({ input: { toolName: "Read notes.txt", args: { path: "notes.txt" } } });
      expect(toolResultSeen(turn.server)).toContain("42 apples");
    } finally {
      acp.cleanup();
      await turn.close();
    }
  }, 60_000);

  test("generateText: the answer, and the model picker through session/set_model", async () => {
    const turn = await toolTurn();
    const small = provider(runtime, turn);
    const large = provider(runtime, turn);
    try {
      const result = await generateText({ model: small.languageModel(), prompt: "count the apples", tools: small.tools });
      expect(result.text).toBe(ANSWER);
      expect(turn.server.requests.at(-1)!.body.model).toBe("small");
      // Known deviation of @mcpc-tech/acp-ai-provider 0.2.9, not of the agent: its doGenerate reports the agent's
      // tool call under the tool's title ("Read notes.txt") instead of its own dynamic tool, so the AI SDK rejects it
      // as unknown and the step keeps no tool result (streamText above carries it).
      const step = result.steps[0]!.content;
      expect(step.find((p) => p.type === "tool-error")).toMatchObject({ toolName: "Read notes.txt", error: expect.stringContaining("unavailable tool") });
      expect(result.steps.flatMap((s) => s.toolResults)).toEqual([]);

      // languageModel("local/large"): the provider checks the id against `models` and calls session/set_model.
      turn.script();
      const switched = await generateText({ model: large.languageModel("local/large"), prompt: "again, on the large model", tools: large.tools });
      expect(switched.text).toBe(ANSWER);
      expect(turn.server.requests.at(-1)!.body.model).toBe("large");
    } finally {
      small.cleanup();
      large.cleanup();
      await turn.close();
    }
  }, 60_000);
});
