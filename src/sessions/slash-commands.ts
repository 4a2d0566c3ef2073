/**
 * The slash commands a session offers: the built-ins, then the prompt
 * templates (a template never shadows a built-in).
 * @module
 */
import type { PromptTemplate } from "./prompt-templates.ts";

/** A command as clients list it: `/name`, what it does, and a hint for its input. */
export interface SlashCommand {
  name: string;
  description: string;
  input?: { hint: string };
}

/** The built-in commands, in the order they are listed. */
export const BUILTIN_COMMANDS: SlashCommand[] = [
  { name: "compact", description: "Summarise older history to free context (optional instructions)", input: { hint: "instructions for the summary" } },
  { name: "name", description: "Rename this session", input: { hint: "new title" } },
  { name: "session", description: "Show this session's messages, tokens, cost and file" },
  { name: "help", description: "List the available commands" },
];

/** Every command a session offers. */
export function availableCommands(templates: readonly PromptTemplate[]): SlashCommand[] {
  const builtinNames = new Set(BUILTIN_COMMANDS.map((c) => c.name));
  const fromTemplates = templates
    .filter((t) => !builtinNames.has(t.name))
    .map((t) => ({ name: t.name, description: t.description, input: { hint: "arguments" } }));
  return [...BUILTIN_COMMANDS, ...fromTemplates];
}
