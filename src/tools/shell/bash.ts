/**
 * The `bash` tool: runs a command through the workspace (this machine, or
 * the editor's terminal), streams its output as it comes, and returns the
 * tail with pi's notes about truncation and how the command ended.
 * @module
 */
import * as v from "valibot";
import { MAX_BACKGROUND_COMMANDS } from "./background-commands.ts";
import { backgroundResult } from "./background-report.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize } from "../truncate.ts";
import type { SandboxSpec } from "../../runtime/sandbox/sandbox-spec.ts";
import { ToolError, type ExecResult, type ToolContext, type ToolDefinition, type ToolResult } from "../types.ts";

/** Titles longer than this are cut (the full command is in the call's input). */
const MAX_TITLE_LENGTH = 200;

/** The `bash` tool's arguments. */
export const BashInput = v.object({
  command: v.pipe(v.string(), v.description("Bash command to execute")),
  timeout: v.optional(v.pipe(v.number(), v.description("Timeout in seconds (optional, no default timeout)"))),
  background: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Run in the background and return at once with the command's id (for servers, watchers, long builds); read it with bash_output, end it with bash_stop"),
    ),
  ),
  outsideSandbox: v.optional(
    v.pipe(
      v.boolean(),
      v.description("true: run this one command outside the sandbox (the user is asked first; give `reason`). Only when it failed because of the sandbox (files it may not write, no network)"),
    ),
  ),
  reason: v.optional(v.pipe(v.string(), v.maxLength(500), v.description("Why the command must run outside the sandbox (shown to the user)"))),
});

/** Runs a shell command in the session's directory. */
export const bashTool: ToolDefinition<typeof BashInput> = {
  name: "bash",
  description:
    `Execute a bash command in the current working directory. Returns stdout and stderr. ` +
    `Output is truncated to last ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). ` +
    `If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds. ` +
    `With background: true the command starts and the call returns at once with its id (a line "id: <id>") and its first output; ` +
    `it keeps running across calls and turns until bash_stop ends it or the session ends. ` +
    `At most ${MAX_BACKGROUND_COMMANDS} background commands at a time.`,
  promptSnippet: "Execute bash commands (ls, grep, find, etc.)",
  promptGuidelines: [
    "Commands run without a terminal and with stdin closed: pass flags that avoid prompts and pagers (e.g. --yes, --no-pager).",
    "Give commands that may run long (builds, test suites, installs) a timeout. A plain bash call ends everything it started (`&` and nohup too) when it returns.",
    "Start dev servers, watchers and long builds you want to keep going with bash and background: true; check them with bash_output; stop everything you started with bash_stop once you no longer need it.",
    "Commands may run in a sandbox (writes only in the project and the temp dir, no network). When a result says the sandbox stopped a command, run it again with outsideSandbox: true and a short reason only if it really needs more; the user is asked.",
  ],
  schema: BashInput,
  kind: "execute",

  access(input) {
    const reason = input.reason?.trim() || "(no reason given)";
    return { class: "execute", command: input.command, ...(input.outsideSandbox === true ? { outsideSandbox: { reason } } : {}) };
  },

  describe(input) {
    const command = input.command.trim();
    const title = command.length > MAX_TITLE_LENGTH ? `${command.slice(0, MAX_TITLE_LENGTH - 1)}…` : command;
    return { title, locations: [] };
  },

  async execute(input, context): Promise<ToolResult> {
    const { workspace, signal } = context;
    if (input.command.trim() === "") throw new ToolError("Command must not be empty.");
    const seconds = input.timeout;
    if (seconds !== undefined && !(Number.isFinite(seconds) && seconds > 0)) {
      throw new ToolError(`Invalid timeout: ${seconds}. Give a positive number of seconds, or leave it out.`);
    }
    signal.throwIfAborted();
    if (input.background === true) {
      if (seconds !== undefined) throw new ToolError("A background command has no timeout: end it with bash_stop when it is no longer needed.");
      return await startInBackground(input.command, context);
    }
    const result = await workspace.exec({
      command: input.command,
      cwd: workspace.cwd,
      ...(seconds !== undefined ? { timeoutMs: Math.ceil(seconds * 1000) } : {}),
      signal,
      onOutput: (delta) => context.report?.({ type: "output", delta }),
      onTerminal: (terminalId) => context.report?.({ type: "terminal", terminalId }),
      ...(context.sandbox ? { sandbox: context.sandbox } : {}),
    });
    const toolResult = toToolResult(result, seconds);
    return context.sandbox ? await withSandboxHint(toolResult, result, context.sandbox) : toolResult;
  },
};

/** Starts the command in the session's background and returns its id and first output (a timeout does not apply). */
async function startInBackground(command: string, context: ToolContext): Promise<ToolResult> {
  const commands = context.backgroundCommands;
  if (!commands) throw new ToolError("Commands cannot run in the background in this session.");
  const { id, command: started, first } = await commands.start(context.workspace, command, context.signal, context.sandbox);
  if (started.terminalId !== undefined) context.report?.({ type: "terminal", terminalId: started.terminalId });
  const lead = [first.exit ? "The command already ended." : "Started in the background. Read its output with bash_output; end it with bash_stop when done."];
  return backgroundResult(id, first, lead, started.terminalId !== undefined ? { terminalId: started.terminalId } : {});
}

/** A confined command's result: marked as confined, with a note when it failed because of the sandbox. */
async function withSandboxHint(toolResult: ToolResult, result: ExecResult, sandbox: SandboxSpec): Promise<ToolResult> {
  const details = { ...toolResult.details, sandboxed: true };
  const failed = result.exitCode !== null && result.exitCode !== 0;
  // Loaded with the first failure of a confined command: nothing of it is needed until then.
  const hint = failed ? (await import("./sandbox-hint.ts")).sandboxHint(result.output, sandbox) : undefined;
  if (!hint) return { ...toolResult, details };
  const [first, ...rest] = toolResult.content;
  const text = first?.type === "text" ? `${first.text}\n\n${hint}` : hint;
  return { ...toolResult, content: [{ type: "text", text }, ...(first?.type === "text" ? rest : toolResult.content)], details };
}

/** The model-facing text and details for a finished command. */
export function toToolResult(result: ExecResult, timeoutSeconds?: number): ToolResult {
  const killedBySignal = !result.timedOut && !result.cancelled && Boolean(result.signal);
  const failedExit = result.exitCode !== null && result.exitCode !== 0;
  const stopped = result.timedOut || result.cancelled;
  const notes: string[] = [];
  if (result.truncated) notes.push(truncationNote(result));
  if (result.cancelled) notes.push("Command aborted");
  else if (result.timedOut) notes.push(`Command timed out after ${timeoutSeconds ?? "?"} seconds`);
  else if (killedBySignal) notes.push(`Command was killed by signal ${result.signal}`);
  else if (failedExit) notes.push(`Command exited with code ${result.exitCode}`);
  // Like pi: a stopped command says only that it stopped; one that ran to its end says it printed nothing.
  const body = result.output !== "" ? result.output : stopped ? "" : "(no output)";
  const text = [body, ...notes].filter((part) => part !== "").join("\n\n");
  return {
    content: [{ type: "text", text }],
    ...(stopped || killedBySignal || failedExit ? { isError: true } : {}),
    details: {
      exitCode: result.exitCode,
      signal: result.signal ?? null,
      truncated: result.truncated,
      ...(result.fullOutputPath ? { fullOutputPath: result.fullOutputPath } : {}),
      totalLines: result.totalLines,
      totalBytes: result.totalBytes,
      timedOut: result.timedOut,
      cancelled: result.cancelled,
    },
  };
}

/** `[Showing lines S-E of T. Full output: <path>]`, naming the byte limit when that is what cut it. */
function truncationNote(result: ExecResult): string {
  const shownLines = result.output === "" ? 0 : result.output.split("\n").length;
  const end = result.totalLines;
  const start = Math.max(1, end - shownLines + 1);
  const byBytes = shownLines < DEFAULT_MAX_LINES ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
  const where = result.fullOutputPath ? `. Full output: ${result.fullOutputPath}` : "";
  return `[Showing lines ${start}-${end} of ${end}${byBytes}${where}]`;
}
