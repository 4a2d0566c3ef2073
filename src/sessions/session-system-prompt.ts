/**
 * A session's system prompt from what it is made of now: the built-in tools
 * (and `skill`, when there are skills to load), its context files, the names
 * and descriptions of its skills — never their instructions, which the model
 * loads when a task calls for one — and where and when it works.
 * @module
 */
import type { ContextFile } from "../engine/context-files.ts";
import { buildSystemPrompt, type SkillSummary } from "../engine/system-prompt.ts";
import { builtinTools } from "../tools/builtin.ts";
import { SKILL_TOOL_PROMPT } from "../tools/skill.ts";
import { TASK_TOOL_PROMPT } from "../tools/delegation/task.ts";
import type { Skill } from "./setup/skills.ts";

/** Skills named to the model at most; the rest can still be run as commands. */
const MAX_LISTED_SKILLS = 100;
/** Characters of skill descriptions in the system prompt at most (about 4,000 tokens). */
const MAX_LISTING_CHARS = 16_000;

/** The skills the system prompt lists: those the model may load, by rank, within the listing's bounds. */
export function listedSkills(skills: readonly Skill[]): SkillSummary[] {
  const listed: SkillSummary[] = [];
  let chars = 0;
  for (const skill of [...skills].sort((a, b) => a.rank - b.rank)) {
    if (!skill.modelInvocable) continue;
    chars += skill.name.length + skill.description.length;
    if (listed.length === MAX_LISTED_SKILLS || chars > MAX_LISTING_CHARS) break;
    listed.push({ name: skill.name, description: skill.description });
  }
  return listed;
}

/** What a session's system prompt is built from. */
export interface SessionPromptInput {
  contextFiles: readonly ContextFile[];
  skills: readonly Skill[];
  cwd: string;
  additionalDirectories: readonly string[];
  date: Date;
}

/** The system prompt of a session made of `input`. */
export function sessionSystemPrompt(input: SessionPromptInput): string {
  const skills = listedSkills(input.skills);
  return buildSystemPrompt({
    tools: skills.length > 0 ? [...builtinTools, SKILL_TOOL_PROMPT, TASK_TOOL_PROMPT] : [...builtinTools, TASK_TOOL_PROMPT],
    contextFiles: input.contextFiles,
    skills,
    cwd: input.cwd,
    additionalDirectories: input.additionalDirectories,
    date: input.date,
  });
}
