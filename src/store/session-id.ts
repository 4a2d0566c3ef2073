/**
 * Session ids name files, so only a safe alphabet is accepted: an id like
 * `../../x` can never reach outside the session directory.
 * @module
 */
import { StoreError } from "./types.ts";

/** Long enough for any generated id, short enough for a file name with room for `.jsonl.lock`. */
const MAX_ID_LENGTH = 128;
const ID_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Whether `id` may name a session file. */
export function isValidSessionId(id: unknown): id is string {
  return typeof id === "string" && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id);
}

/** Throws StoreError("not_found") for an id no session can have. */
export function assertSessionId(id: unknown): asserts id is string {
  if (isValidSessionId(id)) return;
  const shown = typeof id === "string" ? JSON.stringify(id.length > 60 ? `${id.slice(0, 60)}…` : id) : String(id);
  throw new StoreError(
    "not_found",
    `no session ${shown}: session ids use only letters, digits, "_" and "-" (at most ${MAX_ID_LENGTH} characters)`,
  );
}
