/**
 * The `skill` tool: the model loads one of the skills the system prompt
 * lists — its instructions and the names of the files beside them — when a
 * task matches the skill's description. It reads only what the session found
 * on its own (the skill's `SKILL.md`), so it runs without approval in every
 * mode; the files beside it are read with `read` afterwards.
 * @module
 */
import * as v from "valibot";
import { ToolError, type ToolDefinition } from "./types.ts";

/** Where the tool finds skills: the session's, as they are when the call runs. */
export interface SkillShelf {
  /** The named skill's instructions as the model reads them, or why it cannot be loaded. */
  load(name: string): Promise<{ ok: true; text: string; file: string } | { ok: false; message: string }>;
}

export const SkillInput = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(64), v.description("The skill's name, as listed under Skills in the system prompt")),
});

/** How the tool is named to the model in the system prompt. */
export const SKILL_TOOL_PROMPT: Pick<ToolDefinition, "name" | "promptSnippet" | "promptGuidelines"> = {
  name: "skill",
  promptSnippet: "Load a skill's instructions and see the files that come with it",
  promptGuidelines: ["Load a skill with the skill tool before a task its description matches; load each skill once per conversation."],
};

/** The `skill` tool over `shelf`. */
export function createSkillTool(shelf: SkillShelf): ToolDefinition<typeof SkillInput> {
  return {
    ...SKILL_TOOL_PROMPT,
    description:
      "Load a skill: its instructions for a particular kind of task, and the list of files that come with it " +
      "(read those with the read tool when the instructions call for them). The skills are listed under Skills in the system prompt.",
    schema: SkillInput,
    kind: "read",

    describe(input) {
      return { title: `Load skill ${input.name}`, locations: [] };
    },

    async execute(input) {
      const loaded = await shelf.load(input.name);
      if (!loaded.ok) throw new ToolError(loaded.message);
      return { content: [{ type: "text", text: loaded.text }], details: { skill: input.name, path: loaded.file }, locations: [{ path: loaded.file }] };
    },
  };
}
