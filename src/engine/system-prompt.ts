/**
 * The system prompt: who the agent is, its tools and guidelines, the user's
 * and the project's own instructions, the skills it may load, and where and
 * when it is working.
 * @module
 */
import type { ToolDefinition } from "../tools/types.ts";
import type { ContextFile } from "./context-files.ts";

/** A skill as the system prompt lists it: its name and what it is for, never its instructions. */
export interface SkillSummary {
  name: string;
  description: string;
}

/** What the system prompt is built from. */
export interface SystemPromptInput {
  /** The tools listed (MCP tools describe themselves in their specs). */
  tools: readonly Pick<ToolDefinition, "name" | "promptSnippet" | "promptGuidelines">[];
  contextFiles: readonly ContextFile[];
  /** Skills the model may load with the `skill` tool. */
  skills?: readonly SkillSummary[];
  cwd: string;
  additionalDirectories: readonly string[];
  date: Date;
}

/** The system prompt for `input`. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const names = new Set(input.tools.map((t) => t.name));
  const lines: string[] = [
    "You are acp-edge, an expert coding agent working inside the user's editor.",
    "You help with software tasks by examining the project with your tools and answering precisely.",
    "",
    "Available tools:",
    ...input.tools.map((t) => `- ${t.name}: ${t.promptSnippet}`),
    "",
    "Guidelines:",
  ];
  if (names.has("read")) lines.push("- Use read to examine files instead of guessing their contents.");
  if (names.has("grep") || names.has("find") || names.has("ls")) {
    lines.push("- Use grep, find and ls to explore the project; they respect .gitignore.");
  }
  for (const tool of input.tools) for (const guideline of tool.promptGuidelines ?? []) lines.push(`- ${guideline}`);
  lines.push(
    "- Files outside the session's directories are not available to you.",
    "- Be concise in your responses.",
    "- Show file paths clearly when working with files.",
  );
  if (input.contextFiles.length > 0) {
    lines.push("", "# Instructions", "", "The user's own instructions for every project come first, then the project's, from its root down to the working directory; later ones are more specific.");
    for (const file of input.contextFiles) lines.push("", `## ${file.path} (${file.scope === "user" ? "the user's instructions" : "the project's instructions"})`, "", file.content.trimEnd());
  }
  const skills = input.skills ?? [];
  if (skills.length > 0 && names.has("skill")) {
    lines.push("", "# Skills", "", "Skills are instructions for particular tasks. When a task matches a skill's description, load it with the skill tool first and follow it.", "");
    for (const skill of skills) lines.push(`- ${skill.name}: ${skill.description}`);
  }
  lines.push("", `Current date: ${input.date.toISOString().slice(0, 10)}`, `Current working directory: ${input.cwd}`);
  if (input.additionalDirectories.length > 0) lines.push(`Additional directories: ${input.additionalDirectories.join(", ")}`);
  return lines.join("\n");
}
