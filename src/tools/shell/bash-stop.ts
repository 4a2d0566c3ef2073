/**
 * The `bash_stop` tool: ends a background command of this session and
 * everything it started (SIGTERM, then SIGKILL after a grace; an editor's
 * terminal is killed and released) and reports its last output and how it
 * ended. It reaches only the session's own commands, so it needs no approval.
 * @module
 */
import * as v from "valibot";
import { backgroundResult } from "./background-report.ts";
import { ToolError, type ToolDefinition, type ToolResult } from "../types.ts";

/** The `bash_stop` tool's arguments. */
export const BashStopInput = v.object({
  id: v.pipe(v.string(), v.description("The id a background bash call returned")),
});

/** Stops a background command. */
export const bashStopTool: ToolDefinition<typeof BashStopInput> = {
  name: "bash_stop",
  description:
    "Stop a background command started with bash and background: true: the command and everything it started are ended " +
    "(politely, then by force). Returns its last output and how it ended.",
  promptSnippet: "Stop a background command and everything it started",
  schema: BashStopInput,
  kind: "other",

  access() {
    return { class: "none" };
  },

  describe(input) {
    return { title: `Stop ${input.id.slice(0, 40)}`, locations: [] };
  },

  async execute(input, context): Promise<ToolResult> {
    const commands = context.backgroundCommands;
    if (!commands) throw new ToolError("This session has no background commands.");
    const read = await commands.stop(input.id, context.signal);
    return backgroundResult(input.id.trim(), read, ["Stopped."], { stopped: true });
  },
};
