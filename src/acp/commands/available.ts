/**
 * The slash commands a session offers: the built-ins, then the prompt
 * templates (a template never shadows a built-in).
 * @module
 */
import type { AvailableCommand } from "../sdk.ts";
import type { PromptTemplate } from "../../sessions/prompt-templates.ts";

export const BUILTIN_COMMANDS: AvailableCommand[] = [
  { name: "compact", description: "Summarise older history to free context (optional instructions)", input: { hint: "instructions for the summary" } },
  { name: "name", description: "Rename this session", input: { hint: "new title" } },
  { name: "session", description: "Show this session's messages, tokens, cost and file" },
  { name: "help", description: "List the available commands" },
];

export function availableCommands(templates: readonly PromptTemplate[]): AvailableCommand[] {
  const builtinNames = new Set(BUILTIN_COMMANDS.map((c) => c.name));
  const fromTemplates = templates
    .filter((t) => !builtinNames.has(t.name))
    .map((t) => ({ name: t.name, description: t.description, input: { hint: "arguments" } }));
  return [...BUILTIN_COMMANDS, ...fromTemplates];
}
