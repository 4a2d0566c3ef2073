/**
 * acp-edge's tools as Claude Code's hooks know them: the tool's Claude Code
 * name (what matchers and `tool_name` use) and its input with Claude Code's
 * field names (`command`, `file_path`, `old_string`…), so a hook written for
 * Claude Code reads a call of this agent as it reads one of its own.
 * @module
 */
import { toAbsolute } from "../../tools/paths.ts";
import type { ToolResult } from "../../tools/types.ts";

/** acp-edge tool → Claude Code tool. MCP tools are `mcp__server__tool` in both; any other tool keeps its name. */
const CLAUDE_NAMES: Record<string, string> = {
  bash: "Bash", bash_output: "BashOutput", bash_stop: "KillShell", read: "Read", write: "Write", edit: "Edit", ls: "LS",
  grep: "Grep", find: "Glob", fetch: "WebFetch", task: "Task", plan: "TodoWrite", ask: "AskUserQuestion", skill: "Skill",
};

type Input = Record<string, unknown>;

/** The names a call answers to in a matcher: its Claude Code name, and `MultiEdit` too for an edit (Claude Code has both). */
export function claudeToolNames(tool: string, input: unknown): string[] {
  const name = claudeToolName(tool, input);
  return tool === "edit" ? ["Edit", "MultiEdit"] : [name];
}

/** The `tool_name` a hook is given: an edit of several places is a `MultiEdit`. */
export function claudeToolName(tool: string, input: unknown): string {
  if (tool === "edit" && editsOf(input).length > 1) return "MultiEdit";
  return CLAUDE_NAMES[tool] ?? tool;
}

function editsOf(input: unknown): Array<{ oldText?: unknown; newText?: unknown }> {
  const edits = (input as Input | null)?.edits;
  return Array.isArray(edits) ? edits : [];
}

/** The call's input with Claude Code's field names; paths made absolute against `cwd`. */
export function claudeToolInput(tool: string, input: unknown, cwd: string): Input {
  const args = (input ?? {}) as Input;
  const path = (key = "path") => (typeof args[key] === "string" ? toAbsolute(args[key] as string, cwd) : undefined);
  const defined = (fields: Input): Input => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  switch (tool) {
    case "bash":
      // `dangerouslyDisableSandbox` is Claude Code's name for a call asking to run unconfined: a hook written for it reads it there.
      return defined({
        command: args.command,
        timeout: typeof args.timeout === "number" ? args.timeout * 1000 : undefined,
        run_in_background: args.background,
        dangerouslyDisableSandbox: args.outsideSandbox === true ? true : undefined,
      });
    case "read":
      return defined({ file_path: path(), offset: args.offset, limit: args.limit });
    case "write":
      return defined({ file_path: path(), content: args.content });
    case "edit": {
      const edits = editsOf(input).map((edit) => ({ old_string: edit.oldText, new_string: edit.newText }));
      return edits.length === 1 ? defined({ file_path: path(), ...edits[0] }) : defined({ file_path: path(), edits });
    }
    case "grep":
      return defined({ pattern: args.pattern, path: path(), glob: args.glob, "-i": args.ignoreCase, head_limit: args.limit });
    case "find":
      return defined({ pattern: args.pattern, path: path() });
    case "ls":
      return defined({ path: path() ?? cwd });
    case "fetch":
      return defined({ url: args.url });
    case "task":
      return defined({ description: args.description, prompt: args.prompt, subagent_type: args.agent });
    default:
      return args;
  }
}

/** The `tool_response` a PostToolUse hook is given: the result's text, whether it failed, and Claude Code's fields where they exist. */
export function claudeToolResponse(tool: string, input: unknown, cwd: string, result: ToolResult): Input {
  const text = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const response: Input = { success: !result.isError };
  const filePath = claudeToolInput(tool, input, cwd).file_path;
  if (typeof filePath === "string") response.filePath = filePath;
  if (tool === "bash") {
    response.stdout = text;
    response.stderr = "";
    const exitCode = result.details?.exitCode;
    if (typeof exitCode === "number") response.exit_code = exitCode;
  } else {
    response.output = text;
  }
  return response;
}
