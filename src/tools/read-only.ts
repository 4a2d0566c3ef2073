/**
 * The tools that only look: safe to offer without any approval flow.
 * @module
 */
import { findTool } from "./find.ts";
import { grepTool } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { readTool } from "./read.ts";
import type { ToolDefinition } from "./types.ts";

/** read, ls, find and grep, in the order they are offered to the model. */
export const readOnlyTools: ToolDefinition[] = [readTool, lsTool, findTool, grepTool];
