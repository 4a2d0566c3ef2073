/**
 * The `bash` tool: runs a command through the workspace (this machine, or
 * the editor's terminal), streams its output as it comes, and returns the
 * tail with pi's notes about truncation and how the command ended.
 * @module
 */
import * as v from "valibot";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize } from "./truncate.ts";
import { ToolError, type ExecResult, type ToolDefinition, type ToolResult } from "./types.ts";

/** Titles longer than this are cut (the full command is in the call's input). */
const MAX_TITLE_LENGTH = 200;

/** The `bash` tool's arguments. */
export const BashInput = v.object({
  command: v.pipe(v.string(), v.description("Bash command to execute")),
  timeout: v.optional(v.pipe(v.number(), v.description("Timeout in seconds (optional, no default timeout)"))),
});

/** Runs a shell command in the session's directory. */
export const bashTool: ToolDefinition<typeof BashInput> = {
  name: "bash",
  description:
    `Execute a bash command in the current working directory. Returns stdout and stderr. ` +
    `Output is truncated to last ${DEFAULT_MAX_LINES} lines or ${DEFAULT_MAX_BYTES / 1024}KB (whichever is hit first). ` +
    `If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.`,
  promptSnippet: "Execute bash commands (ls, grep, find, etc.)",
  promptGuidelines: [
    "Commands run without a terminal and with stdin closed: pass flags that avoid prompts and pagers (e.g. --yes, --no-pager).",
    "Give commands that may run long (builds, test suites, installs) a timeout; do not start servers or watchers: all a command starts, in the background too, is killed when it returns.",
  ],
  schema: BashInput,
  kind: "execute",

  access(input) {
    return { class: "execute", command: input.command };
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
    const result = await workspace.exec({
      command: input.command,
      cwd: workspace.cwd,
      ...(seconds !== undefined ? { timeoutMs: Math.ceil(seconds * 1000) } : {}),
      signal,
      onOutput: (delta) => context.report?.({ type: "output", delta }),
      onTerminal: (terminalId) => context.report?.({ type: "terminal", terminalId }),
    });
    return toToolResult(result, seconds);
  },
};

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
