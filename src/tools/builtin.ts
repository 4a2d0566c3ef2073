/**
 * The tools every session offers, in the order the model sees them.
 * Approval modes and rules decide which of them may run without asking.
 * @module
 */
import { bashTool } from "./bash.ts";
import { bashOutputTool } from "./bash-output.ts";
import { bashStopTool } from "./bash-stop.ts";
import { editTool } from "./edit.ts";
import { createFetchTool } from "./fetch.ts";
import { findTool } from "./find.ts";
import { grepTool } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { planTool } from "./plan.ts";
import { readTool } from "./read.ts";
import type { ToolDefinition } from "./types.ts";
import { writeTool } from "./write.ts";

/** The built-in tools, with a `fetch` that may also reach `allowHosts` (the user's `fetch.allowHosts`). */
export function createBuiltinTools(allowHosts: readonly string[]): ToolDefinition[] {
  return [readTool, writeTool, editTool, bashTool, bashOutputTool, bashStopTool, grepTool, findTool, lsTool, planTool, createFetchTool(allowHosts)];
}

/** The built-in tools with a `fetch` that reaches public addresses only. */
export const builtinTools: ToolDefinition[] = createBuiltinTools([]);
