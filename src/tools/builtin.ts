/**
 * The tools every session offers, in the order the model sees them.
 * Approval modes and rules decide which of them may run without asking.
 * @module
 */
import { bashTool } from "./shell/bash.ts";
import { bashOutputTool } from "./shell/bash-output.ts";
import { bashStopTool } from "./shell/bash-stop.ts";
import { editTool } from "./files/edit.ts";
import { createFetchTool, type FetchToolOptions } from "./web/fetch.ts";
import { findTool } from "./search/find.ts";
import { grepTool } from "./search/grep.ts";
import { lsTool } from "./files/ls.ts";
import { planTool } from "./plan.ts";
import { readTool } from "./files/read.ts";
import type { ToolDefinition } from "./types.ts";
import { writeTool } from "./files/write.ts";

/** The built-in tools, with a `fetch` as the user's `fetch` settings make it (hosts it may also reach, its time bound). */
export function createBuiltinTools(fetch: FetchToolOptions): ToolDefinition[] {
  return [readTool, writeTool, editTool, bashTool, bashOutputTool, bashStopTool, grepTool, findTool, lsTool, planTool, createFetchTool(fetch)];
}

/** The built-in tools with a `fetch` that reaches public addresses only. */
export const builtinTools: ToolDefinition[] = createBuiltinTools({ allowHosts: [] });
