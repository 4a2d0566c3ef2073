/**
 * Durable sessions as the serve routes name them: by id or by a unique
 * title, with a generation that tells one incarnation of a name from the
 * next (a session deleted and created again under the same title gets a new
 * one, so a client holding the old generation is refused with 409).
 * @module
 */
import { listAllSessions } from "../store/title-claim.ts";
import { excerpt } from "./http-errors.ts";
import type { SessionStore, SessionSummary } from "../store/types.ts";

export type RefResolution = { ok: true; session: SessionSummary } | { ok: false; code: "session_not_found" | "session_ref_ambiguous"; message: string };

/** A stable non-negative safe integer derived from the session id. */
export async function generationOf(sessionId: string): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(sessionId)));
  let value = 0;
  for (let i = 0; i < 6; i += 1) value = value * 256 + digest[i]!;
  return value;
}

export async function resolveSessionRef(store: SessionStore, ref: string): Promise<RefResolution> {
  const sessions = await listAllSessions(store);
  const byId = sessions.find((s) => s.id === ref);
  if (byId) return { ok: true, session: byId };
  const byTitle = sessions.filter((s) => s.title === ref);
  if (byTitle.length === 1) return { ok: true, session: byTitle[0]! };
  if (byTitle.length > 1) {
    return { ok: false, code: "session_ref_ambiguous", message: `${byTitle.length} sessions are titled ${JSON.stringify(excerpt(ref))}; use a session id` };
  }
  return { ok: false, code: "session_not_found", message: "session not found" };
}

/** The session an upgrade names: its id and working directory. */
export type SessionHome = { ok: true; id: string; cwd: string } | Extract<RefResolution, { ok: false }>;

/**
 * Resolves `ref` for a WebSocket upgrade. An id is looked up alone — one
 * file, not the whole list — so attaching stays cheap however many sessions
 * are stored; only a title needs the list (an id wins over a title, as in
 * {@link resolveSessionRef}).
 */
export async function resolveSessionHome(store: SessionStore, ref: string): Promise<SessionHome> {
  if (await store.exists(ref)) {
    try {
      // The header alone: reading a long conversation on every upgrade would make attaching cost its length.
      const header = await store.header(ref);
      return { ok: true, id: header.id, cwd: header.cwd };
    } catch {
      // Deleted or damaged since: the list decides, as for any other ref.
    }
  }
  const resolved = await resolveSessionRef(store, ref);
  return resolved.ok ? { ok: true, id: resolved.session.id, cwd: resolved.session.cwd } : resolved;
}
