/**
 * Durable sessions as the serve routes name them: by id or by a unique
 * title, with a generation that tells one incarnation of a name from the
 * next (a session deleted and created again under the same title gets a new
 * one, so a client holding the old generation is refused with 409).
 * @module
 */
import { listAllSessions } from "../store/title-claim.ts";
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
    return { ok: false, code: "session_ref_ambiguous", message: `${byTitle.length} sessions are titled "${ref}"; use a session id` };
  }
  return { ok: false, code: "session_not_found", message: "session not found" };
}
