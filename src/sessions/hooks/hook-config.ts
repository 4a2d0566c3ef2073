/**
 * Claude Code's hook settings read into the commands a session runs:
 * `{ "<Event>": [{ "matcher": "Bash|Write", "hooks": [{ "type": "command",
 * "command": "…", "timeout": 30 }] }] }`. What acp-edge cannot run (an event
 * it does not have, a hook type other than `command`, a matcher its
 * linear-time regex engine refuses) is left out with a notice, never
 * guessed at.
 * @module
 */
import type { HookFile, HookOrigin } from "./hook-files.ts";
import { compileMatcher, type ToolMatcher } from "./hook-matcher.ts";

/** The events acp-edge fires, with Claude Code's names. */
export const HOOK_EVENTS = ["PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "SubagentStop", "PreCompact", "Notification"] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Events whose matcher is a tool name; the others ignore it (SessionStart's and PreCompact's name their trigger). */
const TOOL_EVENTS = new Set<HookEvent>(["PreToolUse", "PostToolUse"]);

/** Claude Code's default, in seconds. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** The longest a hook may be given, in seconds. */
const MAX_HOOK_TIMEOUT_SECONDS = 3600;
/** Bounds on what one file may ask for. */
const MAX_COMMANDS_PER_FILE = 100;
const MAX_COMMAND_CHARS = 8192;

/** One command to run on one event. */
export interface HookCommand {
  event: HookEvent;
  /** As written (for display); `*` when absent. */
  matcher: string;
  /** Which tool names (or triggers) it applies to. */
  matches: ToolMatcher;
  command: string;
  timeoutSeconds: number;
  origin: HookOrigin;
  file: string;
}

/** The commands of `file`, with notices about what was left out. */
export function readHookCommands(file: HookFile, notices: string[]): HookCommand[] {
  const commands: HookCommand[] = [];
  const skip = (why: string) => void notices.push(`A hook in ${file.path} is not run: ${why}.`);
  for (const [event, groups] of Object.entries(file.hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      skip(`acp-edge has no "${event.slice(0, 64)}" event`);
      continue;
    }
    if (!Array.isArray(groups)) {
      skip(`"${event}" is not a list`);
      continue;
    }
    for (const group of groups as unknown[]) {
      const { matcher, hooks } = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
      const written = typeof matcher === "string" && matcher !== "" ? matcher : "*";
      if (!Array.isArray(hooks)) {
        skip(`a "${event}" entry has no "hooks" list`);
        continue;
      }
      const matches = compileMatcher(TOOL_EVENTS.has(event as HookEvent) || event === "SessionStart" || event === "PreCompact" ? written : "*");
      if (!matches.ok) {
        skip(`its matcher "${written.slice(0, 200)}" cannot be used (${matches.why})`);
        continue;
      }
      for (const hook of hooks as unknown[]) {
        const { type, command, timeout } = (hook ?? {}) as { type?: unknown; command?: unknown; timeout?: unknown };
        if (type !== "command") {
          skip(`hooks of type "${String(type).slice(0, 32)}" are not supported (only "command")`);
          continue;
        }
        if (typeof command !== "string" || command.trim() === "" || command.length > MAX_COMMAND_CHARS) {
          skip(`a "${event}" hook has no command, or one longer than ${MAX_COMMAND_CHARS} characters`);
          continue;
        }
        if (commands.length >= MAX_COMMANDS_PER_FILE) {
          skip(`the file has more than ${MAX_COMMANDS_PER_FILE} hooks`);
          return commands;
        }
        const seconds = typeof timeout === "number" && Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, MAX_HOOK_TIMEOUT_SECONDS) : DEFAULT_HOOK_TIMEOUT_SECONDS;
        commands.push({ event: event as HookEvent, matcher: written, matches: matches.matcher, command, timeoutSeconds: seconds, origin: file.origin, file: file.path });
      }
    }
  }
  return commands;
}
