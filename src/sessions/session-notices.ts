/**
 * Notices told once per session: a file that stays unreadable, or a command
 * file's field that is not honoured, is reported the first time only, however
 * often it is read again or run.
 * @module
 */
import type { LiveSession } from "./live-session.ts";
import { noticeToSession } from "./session-broadcast.ts";

const told = new WeakMap<LiveSession, Set<string>>();

function toldIn(live: LiveSession): Set<string> {
  let set = told.get(live);
  if (!set) told.set(live, (set = new Set()));
  return set;
}

/** Records notices as told (they are on their way to the clients by another path). */
export function markTold(live: LiveSession, notices: readonly string[]): void {
  const set = toldIn(live);
  for (const notice of notices) set.add(notice);
}

/** Tells the session's clients `text` unless it was told before in this session. */
export function tellOnce(live: LiveSession, text: string): void {
  const set = toldIn(live);
  if (set.has(text)) return;
  set.add(text);
  noticeToSession(live, text);
}
