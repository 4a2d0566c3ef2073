/**
 * A live session's system prompt follows its context files (`AGENTS.md`,
 * `CLAUDE.md`): read when the session opens, and before each turn checked
 * with one stat per searched directory and found file — read again and the
 * prompt rebuilt only when one of them changed, so an edit between two
 * prompts reaches the next one while an unchanged project costs no reads.
 * @module
 */
import { contextChanged, loadContextFiles, stampContext, type ContextFile, type ContextStamp } from "../engine/context-files.ts";
import { buildSystemPrompt } from "../engine/system-prompt.ts";
import { builtinTools } from "../tools/builtin.ts";
import type { LiveSession } from "./live-session.ts";

/** What the system prompt of one session is built from. */
interface ContextSource {
  home: string;
  date: Date;
  stamp: ContextStamp;
}

const sources = new WeakMap<LiveSession, ContextSource>();

/** Reads the context files for a session about to open, with the stamp `refreshContext` compares against. */
export async function readContext(home: string, cwd: string): Promise<{ files: ContextFile[]; stamp: ContextStamp }> {
  // Folders are stamped before reading, files after: a file edited since its read began is marked too
  // recent to trust (its times are after `readAt`), so the next turn reads it again.
  const before = await stampContext(home, cwd, []);
  const readAt = Date.now();
  const files = await loadContextFiles(home, cwd);
  const fileStamps = await stampContext(home, cwd, files, readAt);
  return { files, stamp: [...before, ...fileStamps.slice(before.length)] };
}

/** Remembers what a live session's system prompt was built from. */
export function trackContext(live: LiveSession, home: string, date: Date, stamp: ContextStamp): void {
  sources.set(live, { home, date, stamp });
}

/** Rebuilds the session's system prompt when a context file changed since it was built. */
export async function refreshContext(live: LiveSession): Promise<void> {
  const source = sources.get(live);
  if (!source || !(await contextChanged(source.stamp))) return;
  const { files, stamp } = await readContext(source.home, live.cwd);
  live.setSystemPrompt(buildSystemPrompt({
    // As when the session opened: the built-in tools (MCP tools describe themselves in their specs).
    tools: builtinTools,
    contextFiles: files,
    cwd: live.cwd,
    additionalDirectories: live.additionalDirectories,
    date: source.date,
  }));
  source.stamp = stamp;
}
