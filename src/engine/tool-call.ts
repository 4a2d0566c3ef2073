/**
 * Running one tool call: validate the arguments, ask the authorizer, run the
 * tool, and turn whatever happens into a result the model can read. Nothing
 * here throws except an abort.
 * @module
 */
import * as v from "valibot";
import type { ToolCallPart, ToolResultMessage } from "../models/types.ts";
import type { ToolDefinition, ToolDescription, ToolResult, Workspace } from "../tools/types.ts";
import type { EventSink } from "./events.ts";

/** Decides whether a described tool call may run (approval modes and rules live behind this). */
export type ToolAuthorizer = (request: {
  toolCallId: string;
  tool: ToolDefinition;
  input: unknown;
  description: ToolDescription;
  signal: AbortSignal;
}) => Promise<{ allowed: true } | { allowed: false; reason: string }>;

export interface PreparedCall {
  part: ToolCallPart;
  tool?: ToolDefinition;
  /** Validated input, when validation passed. */
  input?: unknown;
  /** Why the call cannot run at all (unknown tool, invalid arguments). */
  problem?: string;
  description: ToolDescription;
}

/** Looks up the tool, validates the input and describes the call for the editor. */
export function prepareCall(part: ToolCallPart, tools: readonly ToolDefinition[], workspace: Workspace): PreparedCall {
  const tool = tools.find((t) => t.name === part.name);
  const fallback: ToolDescription = { title: part.name, locations: [] };
  if (!tool) {
    const names = tools.map((t) => t.name).join(", ");
    return { part, problem: `Tool ${part.name} not found. Available tools: ${names}.`, description: fallback };
  }
  const parsed = v.safeParse(tool.schema, part.input ?? {});
  if (!parsed.success) {
    const issues = parsed.issues.map((i) => `${v.getDotPath(i) ?? "input"}: ${i.message}`).join("; ");
    return { part, tool, problem: `Invalid arguments for ${tool.name}: ${issues}`, description: fallback };
  }
  let description = fallback;
  try {
    description = tool.describe(parsed.output, workspace);
  } catch {
    // A description is cosmetic; a tool that cannot describe its input still runs.
  }
  return { part, tool, input: parsed.output, description };
}

/** Runs a prepared call to completion, emitting its status changes. Rethrows only aborts. */
export async function executeCall(
  call: PreparedCall,
  context: { workspace: Workspace; signal: AbortSignal; authorize?: ToolAuthorizer; emit: EventSink },
): Promise<ToolResultMessage> {
  const { part, tool } = call;
  const fail = async (text: string): Promise<ToolResultMessage> => {
    await context.emit({ type: "tool_call_update", toolCallId: part.id, status: "failed", content: [{ type: "text", text }] });
    return { role: "tool", toolCallId: part.id, toolName: part.name, content: [{ type: "text", text }], isError: true };
  };
  if (!tool || call.problem) return await fail(call.problem ?? `Tool ${part.name} not found.`);

  if (context.authorize) {
    const verdict = await context.authorize({
      toolCallId: part.id,
      tool,
      input: call.input,
      description: call.description,
      signal: context.signal,
    });
    if (!verdict.allowed) return await fail(verdict.reason);
  }
  context.signal.throwIfAborted();
  await context.emit({ type: "tool_call_update", toolCallId: part.id, status: "in_progress" });

  let result: ToolResult;
  try {
    result = await tool.execute(call.input, { workspace: context.workspace, signal: context.signal });
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    return await fail(error instanceof Error ? error.message : String(error));
  }
  const status = result.isError ? "failed" : "completed";
  await context.emit({
    type: "tool_call_update",
    toolCallId: part.id,
    status,
    content: result.content,
    ...(result.locations ? { locations: result.locations } : {}),
    ...(result.details ? { details: result.details } : {}),
  });
  return { role: "tool", toolCallId: part.id, toolName: part.name, content: result.content, isError: Boolean(result.isError) };
}
