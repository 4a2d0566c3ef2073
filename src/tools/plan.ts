/**
 * The `plan` tool: the model keeps a todo list for the task at hand. Each
 * call replaces the whole list, and the editor is shown the full list.
 * @module
 */
import * as v from "valibot";
import type { PlanEntry, ToolDefinition } from "./types.ts";

export const PlanInput = v.object({
  entries: v.pipe(
    v.array(
      v.object({
        content: v.pipe(v.string(), v.minLength(1), v.description("What to do, as a short imperative sentence")),
        status: v.pipe(v.picklist(["pending", "in_progress", "completed"]), v.description("Where this step stands")),
        priority: v.optional(v.pipe(v.picklist(["high", "medium", "low"]), v.description("How important the step is (default medium)"))),
      }),
    ),
    v.maxLength(100),
    v.description("The complete list of steps; it replaces the previous plan"),
  ),
});

export const planTool: ToolDefinition<typeof PlanInput> = {
  name: "plan",
  description:
    "Keep a todo list for a multi-step task. Send the complete list every time (it replaces the previous one), " +
    "with exactly one step in_progress while you work, and mark steps completed as soon as they are done.",
  promptSnippet: "Maintain a todo list for multi-step work",
  promptGuidelines: ["For tasks with three or more steps, keep a plan with the plan tool and update it as you go."],
  schema: PlanInput,
  kind: "think",

  describe(input) {
    const done = input.entries.filter((e) => e.status === "completed").length;
    return { title: `Update plan (${done}/${input.entries.length} done)`, locations: [] };
  },

  async execute(input, { report }) {
    const entries: PlanEntry[] = input.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority ?? "medium" }));
    report?.({ type: "plan", entries });
    const lines = entries.map((e) => `${e.status === "completed" ? "[x]" : e.status === "in_progress" ? "[>]" : "[ ]"} ${e.content}`);
    return { content: [{ type: "text", text: `Plan updated (${entries.length} steps):\n${lines.join("\n")}` }], details: { steps: entries.length } };
  },
};
