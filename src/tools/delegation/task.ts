/**
 * The `task` tool: the model hands a self-contained task to a subagent — a
 * fresh conversation with its own system prompt and only the task as its
 * prompt, none of the parent's history — and gets back only the subagent's
 * final answer. The default subagent may only look (the read-only tools);
 * a custom agent (`.claude/agents/<name>.md`) brings its own system prompt
 * and list of tools, which the session's gate still rules. The engine's
 * turn runs the subagent (`ctx.subagents`) and runs several task calls of
 * one step at the same time.
 * @module
 */
import * as v from "valibot";
import { truncateHead, formatSize } from "../truncate.ts";
import { ToolError, type ToolDefinition } from "../types.ts";

/** A custom agent as the tool offers it. */
export interface SubagentProfile {
  name: string;
  description: string;
  /** The agent's own instructions (the body of its file). */
  instructions: string;
  /** Tool names it may use; undefined: the read-only tools. */
  tools?: readonly string[];
}

/** Where the tool finds custom agents: the session's, as they are when the call runs. */
export interface SubagentShelf {
  /** The agents to list in the tool's description (read when the tool is made). */
  listed: readonly SubagentProfile[];
  /** The named agent as it is now, or why it cannot run. */
  find(name: string): Promise<{ ok: true; agent: SubagentProfile } | { ok: false; message: string }>;
}

export const TaskInput = v.object({
  description: v.pipe(v.string(), v.minLength(1), v.maxLength(200), v.description("A short (3-7 word) description of the task, shown to the user")),
  prompt: v.pipe(v.string(), v.minLength(1), v.maxLength(100_000), v.description("The whole task for the subagent: it sees nothing of this conversation, so say everything it needs")),
  agent: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.description("The custom agent to run (listed in this tool's description); default: a read-only research agent"))),
});

/** The answer handed back to the parent: enough for a report, never a whole repository. */
export const MAX_ANSWER_BYTES = 32 * 1024;

/** The system prompt of every subagent; a custom agent's instructions follow it. */
export function subagentSystemPrompt(cwd: string, instructions?: string): string {
  const lines = [
    "You are a subagent of a coding agent. You were given one task; do it with the tools you have, then answer.",
    "Your final message is the only thing returned to the agent that asked: make it a complete, self-contained answer (findings, file paths, line numbers). Nobody can answer questions you ask.",
    `Working directory: ${cwd}`,
  ];
  if (instructions && instructions.trim() !== "") lines.push("", instructions.trim());
  return lines.join("\n");
}

const BASE_DESCRIPTION =
  "Run a subagent on a self-contained task in a fresh context: it sees only the prompt you give it (none of this conversation), " +
  "uses its own tools, and returns only its final answer. Use it for research that would fill this conversation with files " +
  "(finding where something is done, reading many files to answer one question). Several task calls in one reply run at the same time. " +
  "The default subagent can only read and search (read, grep, find, ls, read-only MCP tools).";

/** How the tool is named to the model in the system prompt. */
export const TASK_TOOL_PROMPT: Pick<ToolDefinition, "name" | "promptSnippet" | "promptGuidelines"> = {
  name: "task",
  promptSnippet: "Delegate a self-contained task to a subagent with a fresh context; several run at once",
  promptGuidelines: ["Use task for broad searches and reading many files; give the subagent the whole task, as it sees nothing of this conversation."],
};

/** Custom agents named in the tool's description at most; the rest can still be run by name. */
export const MAX_LISTED_AGENTS = 50;
/** Characters of agent names and descriptions in the tool's description at most (about 2,000 tokens). */
export const MAX_AGENT_LISTING_CHARS = 8_000;

/** The tool's description: the custom agents listed within the bounds, then how many more there are. */
export function taskDescription(agents: readonly Pick<SubagentProfile, "name" | "description">[]): string {
  if (agents.length === 0) return BASE_DESCRIPTION;
  const lines: string[] = [];
  let chars = 0;
  for (const agent of agents) {
    chars += agent.name.length + agent.description.length;
    if (lines.length === MAX_LISTED_AGENTS || chars > MAX_AGENT_LISTING_CHARS) break;
    lines.push(`- ${agent.name}: ${agent.description}`);
  }
  const more = agents.length - lines.length;
  if (more > 0) lines.push(`${more} more ${more === 1 ? "agent" : "agents"}: pass the name as \`agent\` to run one not listed here.`);
  return `${BASE_DESCRIPTION}\n\nCustom agents (pass the name as \`agent\`):\n${lines.join("\n")}`;
}

/** The `task` tool over `shelf`. */
export function createTaskTool(shelf: SubagentShelf): ToolDefinition<typeof TaskInput> {
  return {
    ...TASK_TOOL_PROMPT,
    description: taskDescription(shelf.listed),
    schema: TaskInput,
    kind: "think",
    concurrent: true,

    describe(input) {
      return { title: input.agent ? `${input.description} (${input.agent})` : input.description, locations: [] };
    },

    async execute(input, { workspace, signal, subagents }) {
      if (!subagents) throw new ToolError("Subagents cannot run here.");
      let agent: SubagentProfile | undefined;
      if (input.agent !== undefined) {
        const found = await shelf.find(input.agent);
        if (!found.ok) throw new ToolError(found.message);
        agent = found.agent;
      }
      const allowed = agent?.tools ? new Set(agent.tools) : undefined;
      const answer = await subagents.run({
        system: subagentSystemPrompt(workspace.cwd, agent?.instructions),
        prompt: input.prompt,
        offers: (tool) => (allowed ? allowed.has(tool.name) : tool.readOnly === true),
      });
      // A cancelled subagent is a cancelled call, not an answer.
      signal.throwIfAborted();
      const cut = truncateHead(answer.text, { maxBytes: MAX_ANSWER_BYTES });
      let text = cut.content.trim() === "" ? "(The subagent gave no answer.)" : cut.content;
      if (cut.truncated) text += `\n\n[The answer was cut at ${formatSize(MAX_ANSWER_BYTES)} of ${formatSize(cut.totalBytes)}.]`;
      const failed = answer.stopReason !== "end_turn";
      if (failed) text += `\n\n[The subagent stopped before it finished: ${answer.stopReason}.]`;
      return {
        content: [{ type: "text", text }],
        ...(failed ? { isError: true } : {}),
        details: { agent: agent?.name ?? "default", stopReason: answer.stopReason, answerBytes: cut.totalBytes, truncated: cut.truncated },
      };
    },
  };
}
