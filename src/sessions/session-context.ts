/**
 * A live session's system prompt follows its context files (`AGENTS.md`,
 * `CLAUDE.md`): read when the session opens, and before each turn checked
 * with one stat per searched directory and found file — read again and the
 * prompt rebuilt only when one of them changed, so an edit between two
 * prompts reaches the next one while an unchanged project costs no reads.
 * A file found but not read (see `readConfinedFile`) is told to the clients
 * once per session, by path and reason.
 * @module
 */
import {
  loadContextFiles,
  stampContext,
  type ContextFile,
  type ContextPlaces,
  type SkippedContextFile,
} from "../engine/context-files.ts";
import { pathsChanged, type PathStamps } from "../runtime/files/path-stamps.ts";
import { markTold, tellOnce } from "./session-notices.ts";
import type { LiveSession } from "./live-session.ts";
import { sessionSystemPrompt } from "./session-system-prompt.ts";

/** What the system prompt of one session is built from. */
interface ContextSource {
  places: ContextPlaces;
  date: Date;
  /** The files the system prompt holds now. */
  files: ContextFile[];
  stamp: PathStamps;
}

/** The context files read for a session, those skipped, and the stamp `refreshContext` compares against. */
export interface SessionContext {
  files: ContextFile[];
  skipped: SkippedContextFile[];
  stamp: PathStamps;
}

const sources = new WeakMap<LiveSession, ContextSource>();

/** The notice for a context file that was found but not read. */
export function contextNotice(skipped: SkippedContextFile): string {
  return skipped.partly ? `Context file ${skipped.path} was read in part: ${skipped.why}.` : `Context file ${skipped.path} was not read: ${skipped.why}.`;
}

/** Reads the context files for a session about to open, with the stamp `refreshContext` compares against. */
export async function readContext(places: ContextPlaces): Promise<SessionContext> {
  // Folders are stamped before reading, files after: a file edited since its read began is marked too
  // recent to trust (its times are after `readAt`), so the next turn reads it again.
  const before = await stampContext(places, []);
  const readAt = Date.now();
  const { files, skipped } = await loadContextFiles(places);
  const fileStamps = await stampContext(places, [...files, ...skipped.filter((s) => !s.partly)], readAt);
  return { files, skipped, stamp: [...before, ...fileStamps.slice(before.length)] };
}

/** Remembers what a live session's system prompt was built from (its skipped files are being told by the caller). */
export function trackContext(live: LiveSession, places: ContextPlaces, date: Date, context: SessionContext): void {
  sources.set(live, { places, date, files: context.files, stamp: context.stamp });
  markTold(live, context.skipped.map(contextNotice));
}

/** Sets the session's system prompt from its context files and skills as they are now. */
export function rebuildSystemPrompt(live: LiveSession): void {
  const source = sources.get(live);
  if (!source) return;
  live.setSystemPrompt(sessionSystemPrompt({
    contextFiles: source.files,
    skills: live.skills,
    cwd: live.cwd,
    additionalDirectories: live.additionalDirectories,
    date: source.date,
  }));
}

/** Rebuilds the session's system prompt when a context file changed since it was built. */
export async function refreshContext(live: LiveSession): Promise<void> {
  const source = sources.get(live);
  if (!source || !(await pathsChanged(source.stamp))) return;
  const { files, skipped, stamp } = await readContext(source.places);
  source.files = files;
  rebuildSystemPrompt(live);
  source.stamp = stamp;
  for (const notice of skipped.map(contextNotice)) tellOnce(live, notice);
}
