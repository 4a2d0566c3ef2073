/**
 * The slash commands a session offers: the built-ins, then one command per
 * name from the prompt templates, command files and skills, by the rank of
 * the folder each came from (see `setup-places.ts`). A built-in always wins:
 * a file cannot take over `/compact` or `/help`.
 * @module
 */
import type { PromptTemplate } from "../setup/prompt-templates.ts";
import type { Skill } from "../setup/skills.ts";

/** A command as clients list it: `/name`, what it does, and a hint for its input. */
export interface SlashCommand {
  name: string;
  description: string;
  input?: { hint: string };
}

/** What a session's command files are (a `LiveSession` is one). */
export interface CommandFiles {
  readonly templates: readonly PromptTemplate[];
  readonly skills: readonly Skill[];
}

/** A command that runs a file: a template expanded, or a skill loaded. */
export type FileCommand = { kind: "template"; template: PromptTemplate } | { kind: "skill"; skill: Skill };

/** The built-in commands, in the order they are listed. */
export const BUILTIN_COMMANDS: SlashCommand[] = [
  { name: "compact", description: "Summarise older history to free context (optional instructions)", input: { hint: "instructions for the summary" } },
  { name: "name", description: "Rename this session", input: { hint: "new title" } },
  { name: "session", description: "Show this session's messages, tokens, cost and file" },
  { name: "help", description: "List the available commands" },
  { name: "undo", description: "Take the last prompt and everything after it out of the conversation" },
  { name: "rewind", description: "List the prompts to go back to; /rewind N goes back to before prompt N", input: { hint: "prompt number" } },
];

const BUILTIN_NAMES = new Set(BUILTIN_COMMANDS.map((c) => c.name));

/** Whether a built-in command has this name. */
export function isBuiltinName(name: string): boolean {
  return BUILTIN_NAMES.has(name);
}

/** The file commands by name, after precedence: the lowest rank wins, built-in names are left out. */
export function fileCommands(files: CommandFiles): Map<string, FileCommand> {
  const ranked: Array<{ name: string; rank: number; command: FileCommand }> = [
    ...files.templates.map((template) => ({ name: template.name, rank: template.rank, command: { kind: "template" as const, template } })),
    ...files.skills.filter((s) => s.userInvocable).map((skill) => ({ name: skill.name, rank: skill.rank, command: { kind: "skill" as const, skill } })),
  ];
  ranked.sort((a, b) => a.rank - b.rank);
  const byName = new Map<string, FileCommand>();
  for (const { name, command } of ranked) if (!BUILTIN_NAMES.has(name) && !byName.has(name)) byName.set(name, command);
  return byName;
}

/** Every command a session offers: the built-ins, then the file commands by name. */
export function availableCommands(files: CommandFiles): SlashCommand[] {
  const commands = [...fileCommands(files).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const fromFiles = commands.map(([name, command]) => {
    const { description, hint } = command.kind === "template" ? command.template : command.skill;
    return { name, description, input: { hint: hint ?? "arguments" } };
  });
  return [...BUILTIN_COMMANDS, ...fromFiles];
}
