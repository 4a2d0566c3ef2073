/**
 * The `task` tool's listing of custom agents is bounded (count and
 * characters, as the skills listing is) and says how many more there are;
 * an agent left out of the listing still runs by name. Agent files' tool
 * lists take Claude Code's background-command tools by their names here.
 */
import { describe, expect, test } from "bun:test";
import { agentToolNames } from "../../src/sessions/setup/agent-files.ts";
import { createTaskTool, MAX_AGENT_LISTING_CHARS, MAX_ANSWER_BYTES, MAX_LISTED_AGENTS, taskDescription, type SubagentProfile } from "../../src/tools/delegation/task.ts";
import type { SubagentRequest, ToolContext, Workspace } from "../../src/tools/types.ts";

const agent = (n: number, description = `does task number ${n}`): SubagentProfile => ({ name: `agent-${n}`, description, instructions: `INSTRUCTIONS-OF-${n}` });

describe("task tool listing", () => {
  test("a few agents are all listed, with no 'more' line", () => {
    const text = taskDescription([agent(1), agent(2)]);
    expect(text).toContain("- agent-1: does task number 1");
    expect(text).toContain("- agent-2: does task number 2");
    expect(text).not.toContain("more agent");
  });

  test("hundreds of agents: at most the count bound, then how many more", () => {
    const agents = Array.from({ length: 400 }, (_, i) => agent(i));
    const text = taskDescription(agents);
    expect(text.split("\n").filter((l) => l.startsWith("- agent-"))).toHaveLength(MAX_LISTED_AGENTS);
    expect(text).toContain(`${400 - MAX_LISTED_AGENTS} more agents: pass the name`);
  });

  test("long descriptions: the characters are bounded too", () => {
    const agents = Array.from({ length: 40 }, (_, i) => agent(i, "x".repeat(1024)));
    const text = taskDescription(agents);
    const listed = text.split("\n").filter((l) => l.startsWith("- agent-"));
    expect(listed.length).toBeLessThan(40);
    expect(listed.join("").length).toBeLessThanOrEqual(MAX_AGENT_LISTING_CHARS + listed.length * 4);
    expect(text).toContain(`${40 - listed.length} more agents`);
  });

  test("an agent left out of the listing still runs by name", async () => {
    const agents = Array.from({ length: 400 }, (_, i) => agent(i));
    const tool = createTaskTool({
      listed: agents,
      find: async (name) => {
        const found = agents.find((a) => a.name === name);
        return found ? { ok: true, agent: found } : { ok: false, message: "no such agent" };
      },
    });
    expect(tool.description).not.toContain("agent-399:");
    const asked: SubagentRequest[] = [];
    const context = {
      workspace: { cwd: "/project" } as Workspace,
      signal: new AbortController().signal,
      subagents: { run: async (request: SubagentRequest) => (asked.push(request), { text: "ANSWER", stopReason: "end_turn" as const }) },
    } as unknown as ToolContext;
    const result = await tool.execute({ description: "late agent", prompt: "do it", agent: "agent-399" }, context);
    expect(asked[0]?.system).toContain("INSTRUCTIONS-OF-399");
    expect(JSON.stringify(result.content)).toContain("ANSWER");
  });
});

describe("task tool answers", () => {
  const run = async (text: string) => {
    const tool = createTaskTool({ listed: [], find: async () => ({ ok: false, message: "none" }) });
    const context = {
      workspace: { cwd: "/project" } as Workspace,
      signal: new AbortController().signal,
      subagents: { run: async () => ({ text, stopReason: "end_turn" as const }) },
    } as unknown as ToolContext;
    const result = await tool.execute({ description: "long answer", prompt: "answer at length" }, context);
    return { text: (result.content[0] as { text: string }).text, details: result.details as { truncated: boolean; answerBytes: number } };
  };

  test("an answer longer than the bound on one line is cut, never dropped: its head and a note come back", async () => {
    const answer = `HEAD-OF-ANSWER ${"x".repeat(40_000)} TAIL-OF-ANSWER`;
    const { text, details } = await run(answer);
    expect(text.startsWith("HEAD-OF-ANSWER xxx")).toBe(true);
    expect(text).not.toContain("TAIL-OF-ANSWER");
    expect(text).not.toContain("gave no answer");
    expect(text).toContain(`[The answer was cut at 32.0KB of ${(answer.length / 1024).toFixed(1)}KB.]`);
    expect(text.indexOf("\n\n[The answer was cut")).toBe(MAX_ANSWER_BYTES);
    expect(details).toMatchObject({ truncated: true, answerBytes: answer.length });
  });

  test("an empty answer is still told as none", async () => {
    expect((await run("  \n ")).text).toBe("(The subagent gave no answer.)");
  });
});

describe("agent files' tool names", () => {
  test("Claude Code's background-command tools map to bash_output and bash_stop", () => {
    expect(agentToolNames(["Read", "BashOutput", "KillShell"]).sort()).toEqual(["bash_output", "bash_stop", "read"]);
    expect(agentToolNames(["KillBash"])).toEqual(["bash_stop"]);
  });

  test("bash brings bash_output and bash_stop; without bash they are not added", () => {
    expect(agentToolNames(["Bash", "Read"]).sort()).toEqual(["bash", "bash_output", "bash_stop", "read"]);
    expect(agentToolNames(["Read", "Grep"]).sort()).toEqual(["grep", "read"]);
  });
});
