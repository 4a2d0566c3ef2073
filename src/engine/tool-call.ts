/**
 * Running one tool call: validate the arguments, work out what it would
 * change, ask the authorizer, run the tool, and turn whatever happens into a
 * result the model can read. Nothing here throws except an abort.
 * @module
 */
import * as v from "valibot";
import type { ToolCallPart, ToolResultMessage } from "../models/types.ts";
import type { BackgroundCommandsView, PathFilter, SubagentHost, ToolAccess, ToolDefinition, ToolDescription, ToolPreview, ToolReport, ToolResult, Workspace } from "../tools/types.ts";
import { StreamRedactor, redact, redactSecrets } from "../runtime/secrets.ts";
import type { SandboxSpec } from "../runtime/sandbox/sandbox-spec.ts";
import type { EngineEvent, EventSink } from "./events.ts";
import { aroundCall, gateCall, type CallStep } from "./call-steps.ts";

export interface AuthorizationRequest {
  toolCallId: string;
  tool: ToolDefinition;
  input: unknown;
  description: ToolDescription;
  access: ToolAccess;
  preview?: ToolPreview;
  signal: AbortSignal;
  /** A subagent's call: the `task` call that runs it. */
  parentToolCallId?: string;
  /**
   * What a step (a hook) said before the gate: `ask` asks even where the
   * policy would allow; `allow` skips a question the policy would ask (never
   * a refusal). The reason is shown with the question.
   */
  stepDecision?: { decision: "ask" | "allow"; reason?: string };
}

export type Authorization =
  | { allowed: true; outsideRootsApproved?: boolean; pathFilter?: PathFilter; sandbox?: SandboxSpec }
  | { allowed: false; reason: string };

/** Decides whether a call may run (approval modes, rules and the user's answers live behind this). */
export type ToolAuthorizer = (request: AuthorizationRequest) => Promise<Authorization>;

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
  context: {
    workspace: Workspace;
    signal: AbortSignal;
    authorize?: ToolAuthorizer;
    emit: EventSink;
    backgroundCommands?: BackgroundCommandsView;
    subagents?: (toolCallId: string) => SubagentHost;
    /** Concerns acting around the call once it is allowed (see call-steps.ts). */
    steps?: readonly CallStep[];
  },
): Promise<ToolResultMessage> {
  const { part, tool } = call;
  const { emit, signal, workspace } = context;
  const fail = async (text: string): Promise<ToolResultMessage> => {
    await emit({ type: "tool_call_update", toolCallId: part.id, status: "failed", content: [{ type: "text", text }] });
    return { role: "tool", toolCallId: part.id, toolName: part.name, content: [{ type: "text", text }], isError: true };
  };
  const failure = (error: unknown) => {
    if (signal.aborted) throw signal.reason;
    return fail(redact(error instanceof Error ? error.message : String(error)));
  };
  if (!tool || call.problem) return await fail(call.problem ?? `Tool ${part.name} not found.`);

  // Output deltas of one call are one stream: a key split across two deltas is still hidden.
  const output = new StreamRedactor();
  const report = (event: ToolReport) => {
    if (event.type !== "output") return void emit(reportEvent(part.id, event));
    const delta = output.push(event.delta);
    if (delta !== "") void emit({ type: "tool_output", toolCallId: part.id, delta });
  };
  const flushOutput = async () => {
    const rest = output.end();
    if (rest !== "") await emit({ type: "tool_output", toolCallId: part.id, delta: rest });
  };
  let preview: ToolPreview | undefined;
  if (tool.preview) {
    try {
      preview = await tool.preview(call.input, { workspace, signal, report });
    } catch (error) {
      return await failure(error);
    }
    if (preview.diff || preview.locations) {
      // The basis stays with the call: only what the editor shows is emitted.
      const { diff, locations } = preview;
      await emit({ type: "tool_call_preview", toolCallId: part.id, ...(diff ? { diff } : {}), ...(locations ? { locations } : {}) });
    }
  }

  const steps = context.steps ?? [];
  const stepCall = {
    toolCallId: part.id,
    tool,
    input: call.input,
    workspace,
    signal,
    emit,
    ...(context.backgroundCommands ? { backgroundCommands: context.backgroundCommands } : {}),
  };
  const gate = await gateCall(steps, stepCall);
  signal.throwIfAborted();
  if (gate?.decision === "deny") return await fail(gate.reason);

  let outsideRootsApproved = false;
  let pathFilter: PathFilter | undefined;
  let sandbox: SandboxSpec | undefined;
  if (context.authorize) {
    const access: ToolAccess = tool.access?.(call.input, workspace) ?? { class: "none" };
    const verdict = await context.authorize({
      toolCallId: part.id,
      tool,
      input: call.input,
      description: call.description,
      access,
      ...(preview ? { preview } : {}),
      ...(gate ? { stepDecision: gate } : {}),
      signal,
    });
    if (!verdict.allowed) return await fail(verdict.reason);
    outsideRootsApproved = verdict.outsideRootsApproved ?? false;
    pathFilter = verdict.pathFilter;
    sandbox = verdict.sandbox;
  }
  signal.throwIfAborted();
  await emit({ type: "tool_call_update", toolCallId: part.id, status: "in_progress" });

  const after = await aroundCall(steps, stepCall);
  let result: ToolResult;
  try {
    // The preview is what was approved: edits and writes check the file still matches it.
    const subagents = context.subagents?.(part.id);
    const toolContext = {
      workspace,
      signal,
      toolCallId: part.id,
      outsideRootsApproved,
      report,
      ...(pathFilter ? { pathFilter } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(preview ? { preview } : {}),
      ...(context.backgroundCommands ? { backgroundCommands: context.backgroundCommands } : {}),
      ...(subagents ? { subagents } : {}),
    };
    result = withoutSecrets(await tool.execute(call.input, toolContext));
  } catch (error) {
    await flushOutput();
    if (signal.aborted) {
      await after({ failure: "cancelled" });
      throw signal.reason;
    }
    const text = redact(error instanceof Error ? error.message : String(error));
    const notes = await after({ failure: text });
    // The steps' notes are redacted here as on the success path: a hook's stderr may name a key.
    return await fail([text, ...notes.map(redact)].join("\n\n"));
  }
  const notes = await after({ result });
  await flushOutput();
  // What the steps had to say after the call (a hook's feedback) is part of what the model reads.
  if (notes.length > 0) result = { ...result, content: [...result.content, ...notes.map((text) => ({ type: "text" as const, text: redact(text) }))] };
  const details = result.details;
  const exit =
    tool.kind === "execute" && details && "exitCode" in details
      ? { exitCode: (details.exitCode as number | null) ?? null, signal: (details.signal as string | null) ?? null }
      : undefined;
  await emit({
    type: "tool_call_update",
    toolCallId: part.id,
    status: result.isError ? "failed" : "completed",
    content: result.content,
    ...(result.locations ? { locations: result.locations } : {}),
    ...(details ? { details } : {}),
    ...(result.diff ? { diff: result.diff } : {}),
    ...(exit ? { exit } : {}),
  });
  return { role: "tool", toolCallId: part.id, toolName: part.name, content: result.content, isError: Boolean(result.isError) };
}

/**
 * Keys and tokens acp-edge knows about never travel on in tool output (a
 * command printing the environment, an MCP server echoing its headers): not
 * to the model, the editor or the session file.
 */
function withoutSecrets(result: ToolResult): ToolResult {
  return { ...result, content: result.content.map((part) => (part.type === "text" ? { type: "text", text: redact(part.text) } : part)) };
}

function reportEvent(toolCallId: string, event: ToolReport): EngineEvent {
  switch (event.type) {
    case "output":
      return { type: "tool_output", toolCallId, delta: redactSecrets(event.delta) };
    case "terminal":
      return { type: "tool_terminal", toolCallId, terminalId: event.terminalId };
    case "plan":
      return { type: "plan", entries: event.entries };
  }
}
