/**
 * The `bash_output` tool: what a background command printed since the last
 * read, and whether it still runs or how it ended; optionally waits (bounded)
 * for news. Reading touches nothing, so it never asks for approval.
 * @module
 */
import * as v from "valibot";
import { MAX_WAIT_MS } from "./background-commands.ts";
import { backgroundResult } from "./background-report.ts";
import { ToolError, type ToolDefinition, type ToolResult } from "../types.ts";

/** The `bash_output` tool's arguments. */
export const BashOutputInput = v.object({
  id: v.pipe(v.string(), v.description("The id a background bash call returned")),
  wait_ms: v.optional(
    v.pipe(v.number(), v.description(`Wait up to this many milliseconds for new output or the command's end (0 to ${MAX_WAIT_MS}; default 0: return at once)`)),
  ),
});

/** Reads a background command's new output and state. */
export const bashOutputTool: ToolDefinition<typeof BashOutputInput> = {
  name: "bash_output",
  description:
    "Read the output a background command (started with bash and background: true) printed since the last read, and whether it is still running or how it ended. " +
    `wait_ms waits up to ${MAX_WAIT_MS} ms for new output or the end. Only the latest output is kept; a note says when older output was dropped.`,
  promptSnippet: "Read new output of a background command and whether it still runs",
  schema: BashOutputInput,
  kind: "other",

  access() {
    return { class: "none" };
  },

  describe(input) {
    return { title: `Output of ${input.id.slice(0, 40)}`, locations: [] };
  },

  async execute(input, context): Promise<ToolResult> {
    const commands = context.backgroundCommands;
    if (!commands) throw new ToolError("This session has no background commands.");
    const wait = input.wait_ms ?? 0;
    if (!Number.isFinite(wait) || wait < 0 || wait > MAX_WAIT_MS) {
      throw new ToolError(`Invalid wait_ms: ${wait}. Give a number of milliseconds from 0 to ${MAX_WAIT_MS}.`);
    }
    const read = await commands.read(input.id, wait, context.signal);
    return backgroundResult(input.id.trim(), read);
  },
};
