/**
 * The system prompt: who the agent is, its tools and guidelines, the
 * project's own instructions, and where and when it is working.
 * @module
 */
import type { ToolDefinition } from "../tools/types.ts";
import type { ContextFile } from "./context-files.ts";

export interface SystemPromptInput {
  tools: readonly ToolDefinition[];
  contextFiles: readonly ContextFile[];
  cwd: string;
  additionalDirectories: readonly string[];
  date: Date;
}

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
    lines.push("", "# Project Context", "", "Project-specific instructions and guidelines:");
    for (const file of input.contextFiles) lines.push("", `## ${file.path}`, "", file.content.trimEnd());
  }
  lines.push("", `Current date: ${input.date.toISOString().slice(0, 10)}`, `Current working directory: ${input.cwd}`);
  if (input.additionalDirectories.length > 0) lines.push(`Additional directories: ${input.additionalDirectories.join(", ")}`);
  return lines.join("\n");
}
